package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.tls.TlsContexts;
import io.rdmakv.server.config.ConnectionDefaults;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.common.RateLimitedLog;
import io.rdmakv.verbs.util.AcceptFailures;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Accepts clients on the node's TCP port. Each connection gets a virtual thread that (with TLS: runs the
 * handshake, see {@link BootstrapTls}, then) reads one HELLO,
 * asks the {@link SessionFactory} to open a session (or refuses with a reason), answers, and then
 * holds the session's lease on the socket ({@link LeaseReader}): HEARTBEATs renew it; the connection's
 * end, a lease timeout without a whole HEARTBEAT, or any other frame end the session, and the factory's
 * {@link Outcome#onEnd()} hears which ({@link SessionEnd}).
 *
 * <p>On a departure (the connection closed) the listener closes the socket. On an expired lease or a bad
 * frame it leaves the socket open for the session's owner, which fences the session before anything else
 * and closes the socket with it (over TLS, a lease that ends inside a record closes the connection first:
 * {@link LeaseWatchdog}).
 */
public final class BootstrapListener implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(BootstrapListener.class.getName());
    /** The whole HELLO of a connection must arrive within this, however it is cut up. */
    public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(10);
    private static final String COMPONENT = "bootstrap listener";
    /** The reason a plaintext HELLO to a TLS node gets. */
    public static final String TLS_REQUIRED = "this node requires TLS on its bootstrap port: connect with TLS " +
        "(KvClientConfig.withTls, kvctl --tls-ca, YCSB rdmakv.tls.ca) and its CA certificate";
    /** The reason a TLS ClientHello to a plaintext node gets (in plaintext: the client reports no TLS). */
    public static final String NO_TLS = "this node runs without TLS: connect without TLS";
    /**
     * Closes TLS connections whose handshake and HELLO are not done by their deadline, and TLS sessions' leases
     * ({@link LeaseWatchdog}), and connections whose heartbeat answer is stuck (shared, one thread).
     */
    private static final ScheduledExecutorService DEADLINES = deadlineTimer();
    /** Set once {@link #prepareVirtualThreadIo()} has succeeded in this JVM. */
    private static volatile boolean virtualThreadIoReady;

    /** Opens sessions for accepted HELLOs. */
    public interface SessionFactory
    {
        /**
         * Opens a session for {@code hello} from {@code socket}; returns the reply (HELLO_OK or
         * HELLO_REFUSED) and, for HELLO_OK, what to do when the session's lease ends.
         */
        Outcome open(HelloMessage hello, Socket socket);
    }

    /**
     * What the factory decided: the reply, what to do when the session ends (null when no session was
     * opened), and whether to answer the session's heartbeats now (null: never), which grants its read lease
     * ({@link LeaseReader}). {@code onEnd} runs on the connection's thread and must only hand the end on.
     */
    public record Outcome(ControlMessage reply, Consumer<SessionEnd> onEnd, java.util.function.BooleanSupplier answer,
        HeartbeatEpochs epochs)
    {
        public Outcome(final ControlMessage reply, final Consumer<SessionEnd> onEnd)
        {
            this(reply, onEnd, null, null);
        }

        public Outcome(final ControlMessage reply, final Consumer<SessionEnd> onEnd,
            final java.util.function.BooleanSupplier answer)
        {
            this(reply, onEnd, answer, null);
        }
    }

    private final ServerSocket server;
    private final BootstrapTls tls;
    private final SessionFactory factory;
    private final ConnectionLimit limit;
    private final long leaseTimeoutNanos;
    private final long helloTimeoutNanos;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private final NodeHealth health;
    private final RateLimitedLog log = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS);
    private volatile boolean closed;

    /**
     * Binds the port now, so a busy port fails at start-up with a clear error. Accept failures are reported
     * to {@code health}: impaired while they last, fatal when they last
     * {@link AcceptFailures#DEFAULT_FATAL_AFTER_NANOS} or are not
     * I/O errors (an {@code Error} such as memory exhaustion).
     *
     * @param leaseTimeoutNanos how long a session keeps its lease without a whole HEARTBEAT
     */
    public BootstrapListener(final InetSocketAddress address, final long leaseTimeoutNanos,
        final SessionFactory factory, final NodeHealth health) throws IOException
    {
        this(address, null, leaseTimeoutNanos, DEFAULT_HELLO_TIMEOUT, factory, health);
    }

    /** As above, with {@code helloTimeout} for the whole HELLO of each connection (a trickle gains nothing). */
    public BootstrapListener(final InetSocketAddress address, final long leaseTimeoutNanos,
        final Duration helloTimeout, final SessionFactory factory, final NodeHealth health) throws IOException
    {
        this(address, null, leaseTimeoutNanos, helloTimeout, factory, health);
    }

    /**
     * As above, with {@code tls} (null: plaintext) and {@code helloTimeout} for the TLS handshake and the
     * whole HELLO of each connection together (a trickle gains nothing).
     */
    public BootstrapListener(final InetSocketAddress address, final BootstrapTls tls, final long leaseTimeoutNanos,
        final Duration helloTimeout, final SessionFactory factory, final NodeHealth health) throws IOException
    {
        this(address, tls, leaseTimeoutNanos, helloTimeout, factory, health,
            new ConnectionLimit(ConnectionDefaults.defaultFor(ConnectionDefaults.processDescriptorLimit())));
    }

    /**
     * As above, holding at most {@code limit} connections at once (handshakes and sessions): a connection
     * over it is closed as soon as it is accepted, before a thread is made for it, and counted.
     */
    public BootstrapListener(final InetSocketAddress address, final BootstrapTls tls, final long leaseTimeoutNanos,
        final Duration helloTimeout, final SessionFactory factory, final NodeHealth health,
        final ConnectionLimit limit) throws IOException
    {
        if (leaseTimeoutNanos <= 0)
        {
            throw new IllegalArgumentException("lease timeout of " + leaseTimeoutNanos + " ns");
        }
        this.tls = tls;
        this.limit = limit;
        this.factory = factory;
        this.health = health;
        this.leaseTimeoutNanos = leaseTimeoutNanos;
        this.helloTimeoutNanos = helloTimeout.toNanos();
        server = new ServerSocket();
        server.setReuseAddress(true);
        try
        {
            server.bind(address, 128);
        }
        catch (final IOException e)
        {
            server.close();
            throw new IOException("cannot listen on " + address.getHostString() + ":" + address.getPort() + ": " +
                e.getMessage(), e);
        }
        try
        {
            prepareVirtualThreadIo();
        }
        catch (final IOException e)
        {
            server.close();
            throw e;
        }
        acceptor = Thread.ofPlatform().daemon().name("rdmakv-bootstrap").unstarted(this::acceptLoop);
    }

    /**
     * Has the JDK set up what blocking socket I/O on a virtual thread waits on (its I/O pollers: epoll
     * descriptors on Linux) now, while descriptors are to be had. The JDK creates them once per JVM, at the
     * first such wait: were that the first session thread's read while idle peers have used up the node's
     * descriptors (the acceptor can take them faster than session threads get to run), it would fail with an
     * {@code ExceptionInInitializerError} (every later wait with {@code NoClassDefFoundError}), and the node
     * would end on that instead of on the accept failures that say why. A timed accept on a throwaway
     * loopback socket, on a virtual thread, is such a wait. Once per JVM.
     */
    static void prepareVirtualThreadIo() throws IOException
    {
        if (virtualThreadIoReady)
        {
            return;
        }
        final Throwable[] failed = new Throwable[1];
        final Thread probe = Thread.ofVirtual().name("rdmakv-io-prepare").start(() ->
        {
            try (ServerSocket throwaway = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                throwaway.setSoTimeout(1);
                throwaway.accept().close(); // a stray connection in that millisecond: waited all the same
            }
            catch (final SocketTimeoutException expected)
            {
                // waited on the pollers: they exist
            }
            catch (final IOException | RuntimeException | Error e)
            {
                failed[0] = e;
            }
        });
        try
        {
            probe.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while preparing virtual-thread socket I/O");
        }
        if (failed[0] != null)
        {
            throw new IOException("cannot prepare socket I/O on virtual threads: " + describe(failed[0]), failed[0]);
        }
        virtualThreadIoReady = true;
    }

    /** {@code e} and, when it has one, its root cause (an {@code ExceptionInInitializerError} says nothing alone). */
    static String describe(final Throwable e)
    {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root)
        {
            root = root.getCause();
        }
        return root == e ? e.toString() : e + " (caused by " + root + ")";
    }

    public void start()
    {
        acceptor.start();
    }

    public int port()
    {
        return server.getLocalPort();
    }

    private static ScheduledExecutorService deadlineTimer()
    {
        final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
            Thread.ofPlatform().daemon().name("rdmakv-bootstrap-deadlines").factory());
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    private void acceptLoop()
    {
        final AcceptFailures failures = new AcceptFailures(AcceptFailures.DEFAULT_FATAL_AFTER_NANOS);
        while (!closed)
        {
            try
            {
                final Socket socket = server.accept();
                if (failures.succeeded())
                {
                    health.recovered(COMPONENT);
                    LOG.log(System.Logger.Level.INFO, "accepting connections again");
                }
                if (!limit.tryAcquire())
                {
                    refuse(socket);
                    continue;
                }
                connections.add(socket);
                try
                {
                    Thread.ofVirtual().name("rdmakv-session-" + socket.getRemoteSocketAddress())
                        .start(() -> serve(socket));
                }
                catch (final RuntimeException | Error e)
                {
                    connections.remove(socket);
                    limit.release();
                    closeQuietly(socket);
                    throw e;
                }
            }
            catch (final IOException e)
            {
                if (closed)
                {
                    return;
                }
                if (failures.healthy())
                {
                    health.impaired(COMPONENT);
                }
                final long backoffNanos = failures.failed(System.nanoTime());
                if (backoffNanos == AcceptFailures.GIVE_UP)
                {
                    health.fatal("the bootstrap listener could not accept connections for " +
                        failures.fatalAfterSeconds() + " s: " + e.getMessage());
                    return;
                }
                log.log(System.Logger.Level.WARNING, "accept", "accept failed, backing off: " + e.getMessage());
                LockSupport.parkNanos(backoffNanos);
            }
            catch (final RuntimeException | Error e)
            {
                if (!closed)
                {
                    health.fatal("the bootstrap listener failed: " + describe(e));
                }
                return;
            }
        }
    }

    private void serve(final Socket accepted)
    {
        Socket socket = accepted;
        Consumer<SessionEnd> onEnd = null;
        SessionEnd end = null;
        final long deadline = System.nanoTime() + helloTimeoutNanos;
        try
        {
            accepted.setTcpNoDelay(true);
            final ControlMessage request;
            try
            {
                final int first = DeadlineReads.readFirstByte(accepted, deadline);
                if (refusedForTls(accepted, first, deadline))
                {
                    return;
                }
                if (tls != null)
                {
                    // per-read timeouts cannot bound reads inside TLS records: past the deadline the connection
                    // is closed under the handshake or the HELLO
                    final ScheduledFuture<?> watchdog = closeAfter(accepted, deadline - System.nanoTime());
                    try
                    {
                        socket = handshake(accepted, first, deadline);
                        request = DeadlineReads.readHello(socket, deadline, -1);
                    }
                    finally
                    {
                        watchdog.cancel(false);
                    }
                }
                else
                {
                    request = DeadlineReads.readHello(socket, deadline, first);
                }
            }
            catch (final MalformedMessageException e)
            {
                DeadlineReads.refuse(socket, e.kind() == MalformedMessageException.Kind.BAD_VERSION ?
                    ReasonCode.UNSUPPORTED_VERSION : ReasonCode.MALFORMED_MESSAGE, e.getMessage());
                return;
            }
            if (!(request instanceof HelloMessage hello))
            {
                DeadlineReads.refuse(socket, ReasonCode.UNEXPECTED_MESSAGE, "expected HELLO, got " + request.type());
                return;
            }
            final Outcome outcome = factory.open(hello, socket);
            onEnd = outcome.onEnd(); // before the reply: a session whose HELLO_OK cannot be sent still ends
            socket.getOutputStream().write(ControlCodec.toBytes(outcome.reply()));
            socket.getOutputStream().flush();
            if (onEnd == null)
            {
                return;
            }
            end = new LeaseReader(socket, accepted, leaseTimeoutNanos, outcome.answer(), outcome.epochs()).hold();
        }
        catch (final SocketTimeoutException e)
        {
            LOG.log(System.Logger.Level.DEBUG, "no HELLO from " + accepted.getRemoteSocketAddress() + " in time");
        }
        catch (final SSLException e)
        {
            log.log(System.Logger.Level.WARNING, "tls", "TLS handshake with " + accepted.getRemoteSocketAddress() +
                " failed: " + e.getMessage());
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.DEBUG, "bootstrap connection ended" + (System.nanoTime() - deadline >= 0 &&
                onEnd == null ? " (no TLS handshake and HELLO in time)" : "") + ": " + e.getMessage());
        }
        catch (final Error e)
        {
            // memory (heap, direct buffers, threads) exhausted while opening or holding a session: the node
            // cannot be trusted to serve anyone any more
            health.fatal("a session could not be served: " + describe(e));
        }
        finally
        {
            connections.remove(accepted);
            limit.release();
            if (onEnd == null || end == null || end.kind() == SessionEnd.Kind.CLOSED)
            {
                try
                {
                    socket.close();
                }
                catch (final IOException ignore)
                {
                    // already gone
                }
            }
            if (onEnd != null)
            {
                onEnd.accept(end != null ? end :
                    new SessionEnd(SessionEnd.Kind.CLOSED, "its bootstrap connection failed"));
            }
        }
    }

    /**
     * Closes a connection accepted while every slot of the limit is taken, at once and on the acceptor's
     * thread (no thread, no read, no reply: a flood gets nothing to hold on to), and says so at most once per
     * log interval.
     */
    private void refuse(final Socket socket)
    {
        final String from = String.valueOf(socket.getRemoteSocketAddress());
        closeQuietly(socket);
        log.log(System.Logger.Level.WARNING, "connection-limit", "refused a connection from " + from + ": " +
            limit.max() + " bootstrap connections (handshakes and sessions) open, the most this node holds " +
            "(--max-connections); existing sessions are served");
    }

    /** The limit on connections this listener holds, with its count of refusals. */
    public ConnectionLimit limit()
    {
        return limit;
    }

    /**
     * A plaintext HELLO on a TLS port, or a ClientHello on a plaintext one: answers HELLO_REFUSED in plaintext
     * (a plain client reads the reason; a TLS client sees a peer that does not speak TLS) and returns true.
     */
    private boolean refusedForTls(final Socket socket, final int first, final long deadline) throws IOException
    {
        final boolean clientTls = first == TlsContexts.HANDSHAKE_RECORD;
        if ((tls != null) == clientTls)
        {
            return false;
        }
        log.log(System.Logger.Level.WARNING, "tls-mismatch", "refused " + socket.getRemoteSocketAddress() +
            (clientTls ? ": it opened TLS, but this node runs without TLS (no --tls-cert)" :
            ": a plaintext HELLO, but this node requires TLS"));
        DeadlineReads.refuse(socket, clientTls ? ReasonCode.UNEXPECTED_MESSAGE : ReasonCode.TLS_REQUIRED,
            clientTls ? NO_TLS : TLS_REQUIRED);
        DeadlineReads.drain(socket, deadline);
        return true;
    }

    /** The server side of the handshake; the caller closes {@code accepted} when its deadline passes. */
    private Socket handshake(final Socket accepted, final int first, final long deadline) throws IOException
    {
        accepted.setSoTimeout((int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        final SSLSocket socket = tls.handshake(accepted, first);
        if (tls.requiresClientCertificates())
        {
            LOG.log(System.Logger.Level.DEBUG, accepted.getRemoteSocketAddress() + " presented " +
                BootstrapTls.clientSubject(socket));
        }
        return socket;
    }

    /** Closes {@code socket} after {@code delayNanos} unless the returned future is cancelled first. */
    static ScheduledFuture<?> closeAfter(final Socket socket, final long delayNanos)
    {
        return schedule(() -> closeQuietly(socket), delayNanos);
    }

    /** Runs {@code task} (quick, never blocking) on the deadline timer after {@code delayNanos}. */
    static ScheduledFuture<?> schedule(final Runnable task, final long delayNanos)
    {
        return DEADLINES.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    private static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
            // already gone
        }
    }

    /** Stops accepting; open sessions keep their connections until they are closed. */
    @Override
    public void close()
    {
        closed = true;
        try
        {
            server.close();
        }
        catch (final IOException ignore)
        {
            // closing: nothing to add
        }
    }

    /** Closes every bootstrap connection still open (their sessions depart). */
    public void closeConnections()
    {
        for (final Socket s : connections)
        {
            try
            {
                s.close();
            }
            catch (final IOException ignore)
            {
                // closing: nothing to add
            }
        }
    }
}
