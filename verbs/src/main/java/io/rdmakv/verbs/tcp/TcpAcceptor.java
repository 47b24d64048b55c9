package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.util.AcceptFailures;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.net.ProtocolException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The accepting side of the {@code tcp} provider's device. One platform thread only accepts; each
 * accepted connection's handshake runs on a virtual thread of its own against one deadline for the whole
 * handshake, so a peer that idles, trickles or lies delays nobody else and is closed when its deadline
 * passes. At most {@link #MAX_PENDING} handshakes run at once (more are closed at once); accept errors
 * (out of file descriptors, say) back off instead of spinning, and are fatal after a while
 * ({@link AcceptFailures}). Every refused, dropped or timed-out connection is counted.
 */
final class TcpAcceptor implements AutoCloseable
{
    static final int MAX_PENDING = 1024;

    private static final System.Logger LOG = System.getLogger(TcpAcceptor.class.getName());

    /** Decides a hello: a {@link TcpWire} handshake status; on OK the target has taken the connection. */
    interface Admission
    {
        int admit(TcpHandshake.Hello hello, SocketChannel channel);
    }

    private final ServerSocketChannel listener;
    private final Admission admission;
    private final long timeoutNanos;
    private final Semaphore pending = new Semaphore(MAX_PENDING);
    private final Set<SocketChannel> handshaking = ConcurrentHashMap.newKeySet();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final Thread thread;
    private final Consumer<String> fatal;
    private volatile boolean closed;

    TcpAcceptor(final ServerSocketChannel listener, final Admission admission, final int timeoutMs, final String name,
        final Consumer<String> fatal)
    {
        this.listener = listener;
        this.admission = admission;
        this.fatal = fatal;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        thread = Thread.ofPlatform().daemon().name(name).start(this::acceptLoop);
    }

    /** Connections refused for a failed check, dropped over {@link #MAX_PENDING}, or past their deadline. */
    long rejectedConnections()
    {
        return rejected.get() + timedOut.get();
    }

    /** Of {@link #rejectedConnections()}: handshakes closed because their deadline passed. */
    long timedOutHandshakes()
    {
        return timedOut.get();
    }

    /** Counts a connection its queue pair dropped after the handshake (it named another peer than RTR did). */
    void countRejected()
    {
        rejected.incrementAndGet();
    }

    private void acceptLoop()
    {
        final AcceptFailures failures = new AcceptFailures(AcceptFailures.DEFAULT_FATAL_AFTER_NANOS);
        while (!closed)
        {
            final SocketChannel channel;
            try
            {
                channel = listener.accept();
                failures.succeeded();
            }
            catch (final ClosedChannelException e)
            {
                return;
            }
            catch (final IOException | RuntimeException e)
            {
                if (closed)
                {
                    return;
                }
                final long backoffNanos = failures.failed(System.nanoTime());
                if (backoffNanos == AcceptFailures.GIVE_UP)
                {
                    fatal.accept("the tcp device could not accept connections for " + failures.fatalAfterSeconds() +
                        " s: " + e.getMessage());
                    return;
                }
                LOG.log(System.Logger.Level.WARNING, "tcp0 accept failed, next try in " +
                    TimeUnit.NANOSECONDS.toMillis(backoffNanos) + " ms: " + e);
                LockSupport.parkNanos(backoffNanos);
                continue;
            }
            if (!pending.tryAcquire())
            {
                rejected.incrementAndGet();
                CloseHelper.quietClose(channel);
                continue;
            }
            try
            {
                Thread.ofVirtual().name("rdmakv-tcp-handshake").start(() -> handshake(channel));
            }
            catch (final Error e)
            {
                CloseHelper.quietClose(channel);
                pending.release();
                fatal.accept("the tcp device could not start a handshake: " + e);
                return;
            }
        }
    }

    private void handshake(final SocketChannel channel)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        handshaking.add(channel);
        boolean handedOver = false;
        try
        {
            if (closed)
            {
                return;
            }
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * TcpWire.BUFFER_LENGTH);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 * TcpWire.BUFFER_LENGTH);
            final TcpHandshake.Hello hello = TcpHandshake.readHello(channel, deadline);
            final int status = admission.admit(hello, channel);
            handedOver = status == TcpWire.HANDSHAKE_OK;
            if (!handedOver)
            {
                rejected.incrementAndGet();
            }
            TcpHandshake.reply(channel, status);
        }
        catch (final SocketTimeoutException e)
        {
            timedOut.incrementAndGet();
            LOG.log(System.Logger.Level.DEBUG, "tcp0 handshake deadline passed: " + peer(channel));
        }
        catch (final ProtocolException e)
        {
            rejected.incrementAndGet();
            LOG.log(System.Logger.Level.DEBUG, "tcp0 refused " + peer(channel) + ": " + e.getMessage());
        }
        catch (final IOException | RuntimeException e)
        {
            // The peer went away mid-handshake (or, after OK, before the answer: its queue pair sees the end).
            handedOver = false;
            LOG.log(System.Logger.Level.DEBUG, "tcp0 handshake failed: " + e);
        }
        catch (final Error e)
        {
            // memory (heap or direct buffers) exhausted setting up the queue pair's side: fatal for the device
            handedOver = false;
            fatal.accept("the tcp device ran out of resources setting up a connection: " + e);
        }
        finally
        {
            handshaking.remove(channel);
            if (!handedOver)
            {
                CloseHelper.quietClose(channel);
            }
            pending.release();
        }
    }

    private static String peer(final SocketChannel channel)
    {
        try
        {
            return String.valueOf(channel.getRemoteAddress());
        }
        catch (final IOException e)
        {
            return "a closed connection";
        }
    }

    /** Stops accepting, closes every handshake still running and waits (up to a second) for the thread. */
    @Override
    public void close()
    {
        closed = true;
        CloseHelper.quietClose(listener);
        for (final SocketChannel channel : handshaking)
        {
            CloseHelper.quietClose(channel);
        }
        try
        {
            thread.join(1000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
