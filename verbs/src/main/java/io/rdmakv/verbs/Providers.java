package io.rdmakv.verbs;

import io.rdmakv.verbs.ibverbs.IbverbsProvider;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.tcp.TcpProvider;

import java.util.List;

/**
 * The one seam where a provider is chosen by name: {@code tcp}, {@code ibverbs} or {@code auto}
 * ({@code ibverbs} when a usable RDMA device exists, else {@code tcp}, saying why in the log).
 */
public final class Providers
{
    public static final String TCP = "tcp";
    public static final String IBVERBS = "ibverbs";
    public static final String AUTO = "auto";
    public static final List<String> NAMES = List.of(AUTO, TCP, IBVERBS);

    private static final System.Logger LOG = System.getLogger(Providers.class.getName());

    private Providers()
    {
    }

    /** The provider called {@code name}; {@code auto} resolves as {@link #resolve} says. */
    public static Provider byName(final String name)
    {
        return switch (name)
        {
            case TCP -> TcpProvider.INSTANCE;
            case IBVERBS -> IbverbsProvider.INSTANCE;
            case AUTO -> resolve();
            default -> throw new IllegalArgumentException(
                "unknown transport '" + name + "': expected one of " + String.join(", ", NAMES));
        };
    }

    /** {@code ibverbs} when it can open a device here, else {@code tcp}, logging the reason. */
    public static Provider resolve()
    {
        final String reason = IbverbsProvider.INSTANCE.unavailableReason();
        if (reason == null)
        {
            LOG.log(System.Logger.Level.INFO, "transport auto: using ibverbs");
            return IbverbsProvider.INSTANCE;
        }
        LOG.log(System.Logger.Level.INFO, "transport auto: using tcp, because ibverbs is unusable: " + reason);
        return TcpProvider.INSTANCE;
    }

    /**
     * Opens a device of the named provider. Asking for {@code ibverbs} where it cannot work fails
     * with the reason.
     */
    public static Context open(final String name, final VerbsConfig config)
    {
        final Provider provider = byName(name);
        final String reason = provider.unavailableReason();
        if (reason != null)
        {
            throw new VerbsException("open " + provider.name(), 0, "transport " + provider.name() +
                " is not usable here: " + reason);
        }
        return provider.open(config);
    }
}
