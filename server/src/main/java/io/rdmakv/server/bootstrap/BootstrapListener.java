package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloRefusedMessage;
import io.rdmakv.common.protocol.MalformedMessageException;
import io.rdmakv.common.protocol.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.ReasonCode;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.server.health.RateLimitedLog;
import io.rdmakv.verbs.util.AcceptFailures;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Accepts clients on the node's TCP port. Each connection gets a virtual thread that reads one HELLO,
 * asks the {@link SessionFactory} to open a session (or refuses with a reason), answers, and then
 * holds the session's lease on the socket ({@link LeaseReader}): HEARTBEATs renew it; the connection's
 * end, a lease timeout without a whole HEARTBEAT, or any other frame end the session, and the factory's
 * {@link Outcome#onEnd()} hears which ({@link SessionEnd}).
 *
 * <p>On a departure (the connection closed) the listener closes the socket. On an expired lease or a bad
 * frame it leaves the socket open for the session's owner, which fences the session before anything else
 * and closes the socket with it.
 */
public final class BootstrapListener implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(BootstrapListener.class.getName());
    /** The whole HELLO of a connection must arrive within this, however it is cut up. */
    public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(10);
    private static final String COMPONENT = "bootstrap listener";

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
     * What the factory decided: the reply, and what to do when the session ends (null when no session was
     * opened). {@code onEnd} runs on the connection's thread and must only hand the end on.
     */
    public record Outcome(ControlMessage reply, Consumer<SessionEnd> onEnd)
    {
    }

    private final ServerSocket server;
    private final SessionFactory factory;
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
        this(address, leaseTimeoutNanos, DEFAULT_HELLO_TIMEOUT, factory, health);
    }

    /** As above, with {@code helloTimeout} for the whole HELLO of each connection (a trickle gains nothing). */
    public BootstrapListener(final InetSocketAddress address, final long leaseTimeoutNanos,
        final Duration helloTimeout, final SessionFactory factory, final NodeHealth health) throws IOException
    {
        if (leaseTimeoutNanos <= 0)
        {
            throw new IllegalArgumentException("lease timeout of " + leaseTimeoutNanos + " ns");
        }
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
        acceptor = Thread.ofPlatform().daemon().name("rdmakv-bootstrap").unstarted(this::acceptLoop);
    }

    public void start()
    {
        acceptor.start();
    }

    public int port()
    {
        return server.getLocalPort();
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
                connections.add(socket);
                Thread.ofVirtual().name("rdmakv-session-" + socket.getRemoteSocketAddress()).start(() -> serve(socket));
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
                    health.fatal("the bootstrap listener failed: " + e);
                }
                return;
            }
        }
    }

    private void serve(final Socket socket)
    {
        Consumer<SessionEnd> onEnd = null;
        SessionEnd end = null;
        try
        {
            socket.setTcpNoDelay(true);
            final ControlMessage request;
            try
            {
                request = readHello(socket, System.nanoTime() + helloTimeoutNanos);
            }
            catch (final MalformedMessageException e)
            {
                refuse(socket, e.kind() == MalformedMessageException.Kind.BAD_VERSION ?
                    ReasonCode.UNSUPPORTED_VERSION : ReasonCode.MALFORMED_MESSAGE, e.getMessage());
                return;
            }
            if (!(request instanceof HelloMessage hello))
            {
                refuse(socket, ReasonCode.UNEXPECTED_MESSAGE, "expected HELLO, got " + request.type());
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
            end = new LeaseReader(socket, leaseTimeoutNanos).hold();
        }
        catch (final SocketTimeoutException e)
        {
            LOG.log(System.Logger.Level.DEBUG, "no HELLO from " + socket.getRemoteSocketAddress() + " in time");
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.DEBUG, "bootstrap connection ended: " + e.getMessage());
        }
        catch (final Error e)
        {
            // memory (heap, direct buffers, threads) exhausted while opening or holding a session: the node
            // cannot be trusted to serve anyone any more
            health.fatal("a session could not be served: " + e);
        }
        finally
        {
            connections.remove(socket);
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

    /** Reads one control message, all of it by {@code deadline} ({@link System#nanoTime()}). */
    private static ControlMessage readHello(final Socket socket, final long deadline) throws IOException
    {
        final byte[] header = new byte[MessageHeaderDescriptor.HEADER_LENGTH];
        readFully(socket, header, 0, header.length, deadline);
        final int length = ControlCodec.checkHeader(MemorySegment.ofArray(header), 0, header.length);
        if (length > MessageHeaderDescriptor.MAX_BOOTSTRAP_MESSAGE_LENGTH)
        {
            throw new MalformedMessageException(MalformedMessageException.Kind.BAD_LENGTH,
                "bootstrap message of " + length + " bytes");
        }
        final byte[] message = new byte[length];
        System.arraycopy(header, 0, message, 0, header.length);
        readFully(socket, message, header.length, length - header.length, deadline);
        return ControlCodec.fromBytes(message);
    }

    /** Each read waits only as long as is left until {@code deadline}: the deadline bounds the whole read. */
    private static void readFully(final Socket socket, final byte[] dst, final int offset, final int length,
        final long deadline) throws IOException
    {
        final InputStream in = socket.getInputStream();
        int done = 0;
        while (done < length)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                throw new SocketTimeoutException("HELLO deadline passed");
            }
            socket.setSoTimeout((int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            final int n = in.read(dst, offset + done, length - done);
            if (n < 0)
            {
                throw new EOFException("connection closed before the whole HELLO");
            }
            done += n;
        }
    }

    private static void refuse(final Socket socket, final ReasonCode code, final String text) throws IOException
    {
        socket.getOutputStream().write(ControlCodec.toBytes(new HelloRefusedMessage(0, code.code(), text)));
        socket.getOutputStream().flush();
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
