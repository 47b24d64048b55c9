package io.rdmakv.client.internal.session;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The client's one background thread: every tick it runs each {@link Duty} over every open session
 * (heartbeats on the bootstrap connections, FREEs of lanes that went idle, ...). A duty that needs the
 * lane itself must take it with {@link Session#tryEnter()} and never wait for it: the lane belongs to
 * its thread. A duty that throws is logged and does not stop the others.
 */
public final class ClientJanitor implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(ClientJanitor.class.getName());

    /** How often KvClient's janitor runs its duties: well inside any heartbeat interval a node may ask for. */
    public static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** One periodic task, run for each open session. */
    @FunctionalInterface
    public interface Duty
    {
        void run(Session session, long nowNanos);
    }

    private final java.util.function.Supplier<Router> routers;
    private final List<Duty> duties;
    private final long tickNanos;
    private final Thread thread;
    private volatile boolean closed;

    public ClientJanitor(final Router router, final long tickNanos, final List<Duty> duties)
    {
        this(() -> router, tickNanos, duties);
    }

    /** A janitor that follows the client's current router (a new one each time the cluster map changes). */
    public ClientJanitor(final java.util.function.Supplier<Router> routers, final long tickNanos,
        final List<Duty> duties)
    {
        this.routers = routers;
        this.duties = List.copyOf(duties);
        this.tickNanos = tickNanos;
        thread = Thread.ofPlatform().daemon().name("rdmakv-janitor").unstarted(this::loop);
    }

    public ClientJanitor start()
    {
        thread.start();
        return this;
    }

    private void loop()
    {
        while (!closed)
        {
            LockSupport.parkNanos(tickNanos);
            final long now = System.nanoTime();
            routers.get().forEachOpen(session ->
            {
                for (final Duty duty : duties)
                {
                    try
                    {
                        duty.run(session, now);
                    }
                    catch (final RuntimeException e)
                    {
                        LOG.log(System.Logger.Level.WARNING, "client janitor: " + e);
                    }
                }
            });
        }
    }

    @Override
    public void close()
    {
        closed = true;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
