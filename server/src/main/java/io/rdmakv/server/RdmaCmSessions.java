package io.rdmakv.server;

import io.rdmakv.common.protocol.CmTicket;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ControlAgent;
import io.rdmakv.server.control.ServerSession;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ConnectionManager;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.QueuePair;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;

/**
 * The node's side of rdma_cm (kvserver {@code --cm rdmacm}, or {@code auto} on an iWARP device): one listener,
 * and one thread that takes connect requests and watches the connections for disconnects.
 *
 * <p>The bootstrap still decides who gets a queue pair. {@link SessionOpener} admits a client as before (auth
 * token, TLS), creates its session and queue pair (left in RESET), and answers HELLO_OK with a {@link CmTicket}:
 * this listener's address and a token drawn for that session alone. A connect request is taken only when its
 * private data names a session admitted so and not yet connected, with that session's token; every other request
 * is rejected ({@code rdma_reject}), counted and logged, and the session it named (if any) is untouched. A ticket
 * is good once. The session's receives are posted while its queue pair is in INIT, before the client hears the
 * answer.
 *
 * <p>A session whose connection ends (the client disconnected or closed, or the connection manager gave up on
 * it: DISCONNECTED), or whose client never connects within {@link #CONNECT_DEADLINE_NANOS}, is fenced and torn
 * down by the agent as after a queue-pair error ({@link ControlAgent#disconnected}). A session the node ends
 * itself closes its connection (the client sees DISCONNECTED) before its queue pair.
 */
final class RdmaCmSessions implements AutoCloseable
{
    /** How long an admitted client has to connect its queue pair. */
    static final long CONNECT_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long the thread waits for a request before it looks at the connections again. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long a taken request has to become a connection (the client's RTU). */
    private static final long ESTABLISH_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final ConnectOptions OPTIONS = ConnectOptions.DEFAULT.withAccessFlags(AccessFlags.ALL_REMOTE);
    private static final System.Logger LOG = System.getLogger(RdmaCmSessions.class.getName());

    private final ConnectionManager.Listener listener;
    /** Fences a session and tears it down, saying why: {@link ControlAgent#disconnected}. */
    private BiConsumer<ServerSession, String> fence;
    private final Map<Long, Link> pending = new ConcurrentHashMap<>();
    private final List<Link> connected = new ArrayList<>(); // the thread's own
    private final Thread thread;
    private final long connectDeadlineNanos;
    private volatile boolean closed;
    private volatile long rejected;
    private final io.rdmakv.common.RateLimitedLog rejections =
        new io.rdmakv.common.RateLimitedLog(LOG, 10, java.util.concurrent.TimeUnit.SECONDS);

    /**
     * One session's side of rdma_cm: its ticket, then its connection. {@link #close()} (the session closing, on
     * the agent's thread) waits out an accept of this session under way, so that the queue pair is never closed
     * while rdma_cm moves it.
     */
    static final class Link implements AutoCloseable
    {
        private final ServerSession session;
        private final CmTicket ticket;
        private final long deadline;
        /** When the ticket was issued (wall clock), for messages. */
        private final long issuedAtMillis = System.currentTimeMillis();
        private final ReentrantLock lock = new ReentrantLock();
        private ConnectionManager.Connection connection;
        private boolean closed;

        Link(final ServerSession session, final CmTicket ticket, final long deadline)
        {
            this.session = session;
            this.ticket = ticket;
            this.deadline = deadline;
        }

        CmTicket ticket()
        {
            return ticket;
        }

        @Override
        public void close()
        {
            lock.lock();
            try
            {
                closed = true;
                if (connection != null)
                {
                    connection.close();
                    connection = null;
                }
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    RdmaCmSessions(final ConnectionManager.Listener listener, final long connectDeadlineNanos)
    {
        this.listener = listener;
        this.connectDeadlineNanos = connectDeadlineNanos;
        this.thread = Thread.ofPlatform().daemon().name("rdmakv-rdmacm").unstarted(this::run);
    }

    /**
     * The node's rdma_cm side when {@code config.connectionSetup()} uses it on {@code context}, listening already
     * ({@link #start} takes requests); null when queue pairs are connected by exchange. Fails with what to do:
     * {@code --cm rdmacm} on {@code tcp}, {@code exchange} on iWARP, no address to listen on.
     */
    static RdmaCmSessions listenIfUsed(final ServerConfig config, final Context context)
    {
        if (!config.connectionSetup().usesConnectionManager(context))
        {
            return null;
        }
        final ConnectionManager cm = context.connectionManager();
        final InetAddress address = listenAddress(config, cm.deviceAddress(), context.deviceName());
        final ConnectionManager.Listener listener;
        try
        {
            listener = cm.listen(new InetSocketAddress(address, 0), 128);
        }
        catch (final RuntimeException e)
        {
            throw new IllegalArgumentException("cannot listen for rdma_cm connections on " + address.getHostAddress() +
                " (" + e.getMessage() + "): it must be an address of the interface device " + context.deviceName() +
                " runs over (--cm-address), or use --cm exchange", e);
        }
        final RdmaCmSessions sessions = new RdmaCmSessions(listener, CONNECT_DEADLINE_NANOS);
        LOG.log(System.Logger.Level.INFO, "queue pairs connect through rdma_cm at " + listener.address() +
            " (--cm " + config.connectionSetup().label() + ", device " + context.deviceName() + ")");
        return sessions;
    }

    /**
     * {@code --cm-address}; else the listen host unless it is a loopback or wildcard address (rdma_cm cannot route
     * over loopback, and a ticket must name one address); else the device's own address.
     */
    static InetAddress listenAddress(final ServerConfig config, final InetAddress deviceAddress, final String device)
    {
        try
        {
            if (config.cmAddress() != null)
            {
                return InetAddress.getByName(config.cmAddress());
            }
            final InetAddress host = InetAddress.getByName(config.listenHost());
            if (!host.isLoopbackAddress() && !host.isAnyLocalAddress())
            {
                return host;
            }
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalArgumentException("cannot resolve the rdma_cm address: " + e.getMessage(), e);
        }
        if (deviceAddress == null)
        {
            throw new IllegalArgumentException("rdma_cm cannot connect over the listen host " + config.listenHost() +
                " (loopback or wildcard), and device " + device + " names no address of its own: pass --cm-address " +
                "with an address of the interface it runs over, or use --cm exchange");
        }
        return deviceAddress;
    }

    /** Starts taking connect requests for sessions of {@code agent}. */
    void start(final ControlAgent agent)
    {
        start(agent::disconnected);
    }

    /** Starts taking connect requests; {@code fence} ends the sessions that disconnect or never connect. */
    void start(final BiConsumer<ServerSession, String> fence)
    {
        this.fence = fence;
        thread.start();
    }

    /** Where clients connect. */
    InetSocketAddress address()
    {
        return listener.address();
    }

    /** Connect requests rejected: no ticket of this node, a wrong token, a session gone or connected already. */
    long rejectedCount()
    {
        return rejected;
    }

    /**
     * A ticket for {@code session} (its queue pair in RESET): the client connects with it, once, within {@link
     * #CONNECT_DEADLINE_NANOS}. Attach the returned link to the session ({@link ServerSession#attachConnection}).
     */
    Link expect(final ServerSession session)
    {
        final Link link = new Link(session, CmTicket.issue(listener.address()),
            System.nanoTime() + connectDeadlineNanos);
        pending.put(session.id(), link);
        return link;
    }

    /** Forgets a ticket whose session could not be opened after all. */
    void cancel(final Link link)
    {
        pending.remove(link.session.id(), link);
    }

    /** The decision about one connect request, and the session it took (held under its link's lock). */
    private final class Decision implements ConnectionManager.Decision
    {
        Link taken;

        @Override
        public QueuePair queuePairFor(final byte[] privateData, final InetSocketAddress peer)
        {
            final CmTicket.Request request = CmTicket.decodeRequest(privateData);
            final Link link = request == null ? null : pending.get(request.sessionId());
            if (link == null || !link.ticket.matches(request))
            {
                refuse(peer, request == null ? "no rdmakv ticket in its private data" :
                    "session " + request.sessionId() + (link == null ? " is not waiting for a connection" :
                    " with the wrong token"));
                return null;
            }
            if (!pending.remove(request.sessionId(), link))
            {
                refuse(peer, "session " + request.sessionId() + " is connected already");
                return null;
            }
            link.lock.lock();
            if (link.closed || link.session.departed())
            {
                link.lock.unlock();
                final String ended = link.session.ended();
                refuse(peer, "session " + request.sessionId() + " has ended (its ticket issued " +
                    java.time.Instant.ofEpochMilli(link.issuedAtMillis) + (ended.isEmpty() ? "" : ", " + ended) + ")");
                return null;
            }
            taken = link;
            return link.session.qp();
        }

        @Override
        public void initialized(final QueuePair qp)
        {
            for (int i = 0; i < ServerSession.RECV_BUFFERS; i++)
            {
                if (!taken.session.postReceive(i))
                {
                    throw new IllegalStateException("cannot post the receive buffers of " + taken.session);
                }
            }
        }

        private void refuse(final InetSocketAddress peer, final String why)
        {
            rejected++;
            // a flood of forged requests costs the log one line per interval, the rest are counted
            rejections.log(System.Logger.Level.WARNING, "rdma_cm rejection",
                "rejected an rdma_cm connect request from " + peer + ": " + why);
        }
    }

    private void run()
    {
        while (!closed)
        {
            try
            {
                acceptOne();
                watch();
            }
            catch (final RuntimeException e)
            {
                if (!closed)
                {
                    // a listener that fails at once (its device gone) is not spun on
                    LOG.log(System.Logger.Level.WARNING, "rdma_cm listener: " + e.getMessage());
                    LockSupport.parkNanos(POLL_NANOS);
                }
            }
        }
    }

    private void acceptOne()
    {
        final Decision decision = new Decision();
        ConnectionManager.Connection connection = null;
        try
        {
            connection = listener.accept(POLL_NANOS, ESTABLISH_NANOS, OPTIONS, decision);
        }
        catch (final RuntimeException e)
        {
            if (decision.taken != null)
            {
                LOG.log(System.Logger.Level.WARNING, "cannot connect the queue pair of " + decision.taken.session +
                    " through rdma_cm: " + e.getMessage());
                fence.accept(decision.taken.session, "its rdma_cm connection failed: " + e.getMessage());
            }
            else
            {
                throw e;
            }
        }
        finally
        {
            if (decision.taken != null)
            {
                if (connection != null)
                {
                    decision.taken.connection = connection;
                    connected.add(decision.taken);
                }
                decision.taken.lock.unlock();
            }
        }
    }

    /** Disconnected sessions and expired tickets go to the agent to be fenced. */
    private void watch()
    {
        final Iterator<Link> links = connected.iterator();
        while (links.hasNext())
        {
            final Link link = links.next();
            if (!link.lock.tryLock())
            {
                continue; // closing just now
            }
            try
            {
                if (link.closed || link.connection == null)
                {
                    links.remove();
                }
                else if (link.connection.pollDisconnected(0))
                {
                    links.remove();
                    LOG.log(System.Logger.Level.DEBUG, () -> link.session + " disconnected: " +
                        link.connection.history());
                    fence.accept(link.session, "its rdma_cm connection was disconnected");
                }
            }
            finally
            {
                link.lock.unlock();
            }
        }
        final long now = System.nanoTime();
        for (final Link link : pending.values())
        {
            if (now - link.deadline > 0 && pending.remove(link.session.id(), link))
            {
                fence.accept(link.session, "it did not connect its queue pair through rdma_cm within " +
                    TimeUnit.NANOSECONDS.toMillis(connectDeadlineNanos) + " ms");
            }
        }
    }

    /** Stops the thread and the listener; the sessions close their own connections. */
    @Override
    public void close()
    {
        closed = true;
        try
        {
            if (thread.isAlive())
            {
                thread.join(TimeUnit.SECONDS.toMillis(15));
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        listener.close();
    }
}
