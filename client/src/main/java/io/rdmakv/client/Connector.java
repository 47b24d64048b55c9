package io.rdmakv.client;

import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.client.internal.session.Router;
import io.rdmakv.client.internal.session.Session;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.SessionRefusedException;
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
import java.util.concurrent.locks.LockSupport;

/** {@link KvClient#connect}: opens the transport and learns the cluster map from the first seed that answers. */
final class Connector
{
    /** The pause between rounds over the seeds while every node answered but none could serve yet. */
    private static final long RETRY_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);

    private Connector()
    {
    }

    static KvClient connect(final KvClientConfig config)
    {
        final Context context;
        try
        {
            context = Providers.open(config.transport(),
                VerbsConfig.DEFAULT.withTcpBindHost(config.tcpBindHost()).withDevice(config.device()));
        }
        catch (final RuntimeException e)
        {
            throw new KvConnectionException("cannot open transport '" + config.transport() + "': " + e.getMessage(), e);
        }
        try
        {
            config.connectionSetup().usesConnectionManager(context); // rdmacm on tcp, exchange on iWARP: say so now
        }
        catch (final IllegalArgumentException e)
        {
            context.close();
            throw new KvConnectionException(e.getMessage(), e);
        }
        ProtectionDomain pd = null;
        try
        {
            pd = context.allocateProtectionDomain();
            final Router.SessionOpener opener = Router.opener(context, pd,
                config.authToken().getBytes(StandardCharsets.UTF_8), config.tls() == null ? null : config.tls().context(),
                config.connectTimeout().toNanos(), config.opTimeout().toNanos(), config.waitStrategy(),
                config.connectionSetup());
            final long deadline = System.nanoTime() + config.connectTimeout().toNanos();
            while (true)
            {
                final List<String> failures = new ArrayList<>();
                boolean transientOnly = true;
                for (final InetSocketAddress seed : config.seeds())
                {
                    final Session session;
                    try
                    {
                        session = opener.open(resolve(seed));
                    }
                    catch (final SessionRefusedException e)
                    {
                        if (!inTransition(e))
                        {
                            throw new KvConnectionException(e.getMessage(), e);
                        }
                        failures.add(e.getMessage());
                        continue;
                    }
                    catch (final RuntimeException e)
                    {
                        transientOnly &= inTransition(e);
                        failures.add(e.getMessage());
                        continue;
                    }
                    return withSeedSession(config, context, pd, opener, session);
                }
                // every seed answered but none could serve now (in no map yet, not current, shutting down, or a
                // map change fenced the session being opened): ask again until the connect timeout
                if (!transientOnly || System.nanoTime() - deadline >= 0)
                {
                    throw new KvConnectionException("no node answered: " + String.join("; ", failures));
                }
                LockSupport.parkNanos(RETRY_NANOS);
            }
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

    /**
     * Whether a node answered but cannot serve this session just now: it refused it as not in a map yet, not
     * current, or shutting down (a cluster node being replaced), or the session was fenced while it was being
     * opened (the queue pair's connect refused: a new map came in between). Anything else (no listener, auth,
     * TLS, version) is final.
     */
    private static boolean inTransition(final RuntimeException e)
    {
        if (e instanceof SessionRefusedException refused)
        {
            return refused.forNow();
        }
        return e instanceof SessionFailedException && e.getCause() instanceof io.rdmakv.verbs.resource.VerbsException;
    }

    private static InetSocketAddress resolve(final InetSocketAddress address)
    {
        return address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
    }
}
