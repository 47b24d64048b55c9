package io.rdmakv.client;

import io.rdmakv.client.internal.Router;
import io.rdmakv.client.internal.Session;
import io.rdmakv.client.internal.SessionRefusedException;
import io.rdmakv.client.internal.SlotCache;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.CloseHelper;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** {@link KvClient#connect}: opens the transport and learns the cluster map from the first seed that answers. */
final class Connector
{
    private Connector()
    {
    }

    static KvClient connect(final KvClientConfig config)
    {
        final Context context;
        try
        {
            context = Providers.open(config.transport(), VerbsConfig.DEFAULT.withTcpBindHost(config.tcpBindHost()));
        }
        catch (final RuntimeException e)
        {
            throw new KvConnectionException("cannot open transport '" + config.transport() + "': " + e.getMessage(), e);
        }
        ProtectionDomain pd = null;
        try
        {
            pd = context.allocateProtectionDomain();
            final Router.SessionOpener opener = Router.opener(context, pd,
                config.authToken().getBytes(StandardCharsets.UTF_8), config.tls() == null ? null : config.tls().context(),
                config.connectTimeout().toNanos(), config.opTimeout().toNanos(), config.waitStrategy());
            final List<String> failures = new ArrayList<>();
            for (final InetSocketAddress seed : config.seeds())
            {
                final Session session;
                try
                {
                    session = opener.open(resolve(seed));
                }
                catch (final SessionRefusedException e)
                {
                    throw new KvConnectionException(e.getMessage(), e);
                }
                catch (final RuntimeException e)
                {
                    failures.add(e.getMessage());
                    continue;
                }
                return withSeedSession(config, context, pd, opener, session);
            }
            throw new KvConnectionException("no node answered: " + String.join("; ", failures));
        }
        catch (final RuntimeException e)
        {
            CloseHelper.quietClose(pd);
            context.close();
            throw e;
        }
    }

    /**
     * The client, with the seed's session kept as the first lane to that node of whichever thread needs one
     * first ({@link Router#adopt}; its HELLO_OK carried the map, already decoded: no JSON parser on this path).
     */
    private static KvClient withSeedSession(final KvClientConfig config, final Context context,
        final ProtectionDomain pd, final Router.SessionOpener opener, final Session seed)
    {
        Router router = null;
        try
        {
            final HelloOkMessage hello = seed.hello();
            router = new Router(hello.clusterMap(), opener, new SlotCache(config.cacheEntries()));
            if (!router.adopt(seed))
            {
                seed.close();
            }
            return new KvClient(config, context, pd, router, opener, hello.geometry().maxKeyLength(),
                hello.geometry().maxValueLength());
        }
        catch (final RuntimeException e)
        {
            if (router != null)
            {
                router.close();
            }
            seed.close();
            throw e;
        }
    }

    private static InetSocketAddress resolve(final InetSocketAddress address)
    {
        return address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
    }
}
