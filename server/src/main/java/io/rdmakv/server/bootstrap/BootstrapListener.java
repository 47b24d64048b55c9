package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloRefusedMessage;
import io.rdmakv.common.protocol.MalformedMessageException;
import io.rdmakv.common.protocol.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.ReasonCode;

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

/**
 * Accepts clients on the node's TCP port. Each connection gets a virtual thread that reads one HELLO,
 * asks the {@link SessionFactory} to open a session (or refuses with a reason), answers, and then
 * waits on the socket for the rest of the session: its end is the client's departure. The whole HELLO
 * must arrive within one deadline (a peer that trickles it gains nothing), so no connection holds a
 * thread and a socket past it without a session; accept errors back off instead of spinning.
 */
public final class BootstrapListener implements AutoCloseable
{
    /** How long a connection has to deliver its whole HELLO. */
    public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(10);
    private static final long MIN_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 1_000;
    private static final System.Logger LOG = System.getLogger(BootstrapListener.class.getName());

    /** Opens sessions for accepted HELLOs. */
    public interface SessionFactory
    {
        /**
         * Opens a session for {@code hello} from {@code socket}; returns the reply (HELLO_OK or
         * HELLO_REFUSED) and, for HELLO_OK, the task to run when the connection ends.
         */
        Outcome open(HelloMessage hello, Socket socket);
    }

    /** What the factory decided: the reply, and what to do when the client's connection closes (or null). */
    public record Outcome(ControlMessage reply, Runnable onDeparture)
    {
    }

    private final ServerSocket server;
    private final SessionFactory factory;
    private final long helloTimeoutNanos;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    /** Binds the port now, so a busy port fails at start-up with a clear error. */
    public BootstrapListener(final InetSocketAddress address, final SessionFactory factory) throws IOException
    {
        this(address, factory, DEFAULT_HELLO_TIMEOUT);
    }

    /** As above, with {@code helloTimeout} for the whole HELLO of each connection. */
    public BootstrapListener(final InetSocketAddress address, final SessionFactory factory,
        final Duration helloTimeout) throws IOException
    {
        this.factory = factory;
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
        long backoffMs = 0;
        while (!closed)
        {
            try
            {
                final Socket socket = server.accept();
                backoffMs = 0;
                connections.add(socket);
                Thread.ofVirtual().name("rdmakv-session-" + socket.getRemoteSocketAddress()).start(() -> serve(socket));
            }
            catch (final IOException e)
            {
                if (!closed)
                {
                    backoffMs = Math.clamp(backoffMs * 2, MIN_BACKOFF_MS, MAX_BACKOFF_MS);
                    LOG.log(System.Logger.Level.WARNING, "accept failed, next try in " + backoffMs + " ms: " +
                        e.getMessage());
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(backoffMs));
                }
            }
        }
    }

    private void serve(final Socket socket)
    {
        Runnable onDeparture = null;
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
            socket.getOutputStream().write(ControlCodec.toBytes(outcome.reply()));
            socket.getOutputStream().flush();
            onDeparture = outcome.onDeparture();
            if (onDeparture == null)
            {
                return;
            }
            socket.setSoTimeout(0);
            final InputStream in = socket.getInputStream();
            while (in.read() >= 0)
            {
                // the client sends nothing more here: any byte is ignored, the end is the departure
            }
        }
        catch (final SocketTimeoutException e)
        {
            LOG.log(System.Logger.Level.DEBUG, "no HELLO from " + socket.getRemoteSocketAddress() + " in time");
        }
        catch (final IOException e)
        {
            LOG.log(System.Logger.Level.DEBUG, "bootstrap connection ended: " + e.getMessage());
        }
        finally
        {
            connections.remove(socket);
            try
            {
                socket.close();
            }
            catch (final IOException ignore)
            {
                // already gone
            }
            if (onDeparture != null)
            {
                onDeparture.run();
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
