package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;

import java.util.concurrent.TimeUnit;

/**
 * A device's responder engine: a fixed number of {@link TcpEngineLoop} threads (one by default) that serve
 * every inbound connection of the device, assigned round-robin. Hundreds of queue pairs cost sockets and
 * buffers, not threads. The threads start with the first connection.
 *
 * <p>Tuned by system properties, read when the device opens: {@value #THREADS_PROPERTY} (1 to
 * {@value #MAX_THREADS}, default {@value #DEFAULT_THREADS}) and {@value #SPIN_PROPERTY} (microseconds a loop
 * spins after its last work before it sleeps in epoll, 0 to {@value #MAX_SPIN_MICROS}, default
 * {@value #DEFAULT_SPIN_MICROS}).
 */
final class TcpResponderEngine implements AutoCloseable
{
    static final String THREADS_PROPERTY = "rdmakv.tcp.engine.threads";
    static final String SPIN_PROPERTY = "rdmakv.tcp.engine.spin.us";
    static final int DEFAULT_THREADS = 1;
    static final int MAX_THREADS = 64;
    static final long DEFAULT_SPIN_MICROS = 50;
    static final long MAX_SPIN_MICROS = 10_000;

    private final String name;
    private final int threads;
    private final long spinNanos;
    private TcpEngineLoop[] loops;
    private int next;
    private boolean closed;

    TcpResponderEngine(final String name, final int threads, final long spinMicros)
    {
        if (threads < 1 || threads > MAX_THREADS)
        {
            throw new IllegalArgumentException(THREADS_PROPERTY + " must be 1.." + MAX_THREADS + ", not " + threads);
        }
        if (spinMicros < 0 || spinMicros > MAX_SPIN_MICROS)
        {
            throw new IllegalArgumentException(SPIN_PROPERTY + " must be 0.." + MAX_SPIN_MICROS + ", not " + spinMicros);
        }
        this.name = name;
        this.threads = threads;
        this.spinNanos = TimeUnit.MICROSECONDS.toNanos(spinMicros);
    }

    /** An engine as the system properties say; a bad value is an error that names the property. */
    static TcpResponderEngine fromSystemProperties(final String name)
    {
        return new TcpResponderEngine(name, (int)longProperty(THREADS_PROPERTY, DEFAULT_THREADS),
            longProperty(SPIN_PROPERTY, DEFAULT_SPIN_MICROS));
    }

    private static long longProperty(final String property, final long fallback)
    {
        final String text = System.getProperty(property);
        if (text == null || text.isBlank())
        {
            return fallback;
        }
        try
        {
            return Long.parseLong(text.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(property + " must be a whole number, not '" + text + "'", e);
        }
    }

    /** Assigns a connection to the next loop, starting the loops on first use. */
    synchronized void serve(final TcpResponder responder)
    {
        if (closed)
        {
            responder.retire();
            return;
        }
        if (loops == null)
        {
            loops = new TcpEngineLoop[threads];
            for (int i = 0; i < threads; i++)
            {
                loops[i] = new TcpEngineLoop(name + "-" + i, spinNanos);
            }
        }
        loops[next].serve(responder);
        next = (next + 1) % threads;
    }

    @Override
    public synchronized void close()
    {
        closed = true;
        if (loops != null)
        {
            CloseHelper.closeAll(loops);
        }
    }
}
