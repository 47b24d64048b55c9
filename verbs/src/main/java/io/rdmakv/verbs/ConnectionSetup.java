package io.rdmakv.verbs;

import java.util.List;

/**
 * How a session's queue pairs get connected after the TCP bootstrap ({@code --cm} of kvserver and kvctl,
 * {@code KvClientConfig.withConnectionSetup}, the YCSB binding's {@code rdmakv.cm}).
 *
 * <ul>
 * <li>{@link #EXCHANGE}: the bootstrap carries each side's queue-pair number and GID, and each side moves its
 *     queue pair to RTR and RTS itself (InfiniBand and RoCE; what the {@code tcp} provider always does).</li>
 * <li>{@link #RDMACM}: the RDMA connection manager (librdmacm) connects them: the node names an address, port
 *     and ticket in its bootstrap reply, the client sends a connect request with the ticket as private data.
 *     Needed on iWARP devices (siw, Chelsio, E810 in iWARP mode), which have no queue-pair number exchange.</li>
 * <li>{@link #AUTO}: a node uses rdma_cm where its device needs it ({@link Context#requiresConnectionManager()})
 *     and the exchange elsewhere; a client follows whichever the node chose.</li>
 * </ul>
 */
public enum ConnectionSetup
{
    AUTO("auto"),
    RDMACM("rdmacm"),
    EXCHANGE("exchange");

    /** What {@code --cm} accepts. */
    public static final List<String> NAMES = List.of(AUTO.label, RDMACM.label, EXCHANGE.label);

    private final String label;

    ConnectionSetup(final String label)
    {
        this.label = label;
    }

    /** {@code auto}, {@code rdmacm} or {@code exchange}. */
    public String label()
    {
        return label;
    }

    /** The setup called {@code name} (one of {@link #NAMES}), or an {@link IllegalArgumentException} naming them. */
    public static ConnectionSetup parse(final String name)
    {
        for (final ConnectionSetup setup : values())
        {
            if (setup.label.equals(name))
            {
                return setup;
            }
        }
        throw new IllegalArgumentException("unknown connection setup '" + name + "' (--cm): expected one of " +
            String.join(", ", NAMES));
    }

    /**
     * Whether a node on {@code context} connects its queue pairs through rdma_cm under this setting.
     * {@link #RDMACM} on a provider without a connection manager ({@code tcp}) and {@link #EXCHANGE} on a device
     * that cannot exchange (iWARP) fail with what to use instead.
     */
    public boolean usesConnectionManager(final Context context)
    {
        final boolean available = context.connectionManager() != null;
        return switch (this)
        {
            case AUTO -> available && context.requiresConnectionManager();
            case RDMACM ->
            {
                if (!available)
                {
                    throw new IllegalArgumentException("--cm rdmacm needs the ibverbs transport; the " +
                        context.providerName() + " transport connects its queue pairs itself: use --cm auto or " +
                        "exchange, or --transport ibverbs");
                }
                yield true;
            }
            case EXCHANGE ->
            {
                if (context.requiresConnectionManager())
                {
                    throw new IllegalArgumentException("device " + context.deviceName() + " is iWARP: its queue " +
                        "pairs can only be connected through rdma_cm, not by exchanging their numbers: use --cm auto " +
                        "or rdmacm");
                }
                yield false;
            }
        };
    }
}
