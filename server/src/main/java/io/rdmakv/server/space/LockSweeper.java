package io.rdmakv.server.space;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.function.LongPredicate;

/**
 * Clears insert locks that hold a value no live session has (a client's bug, a forged CAS, a session whose
 * departure scan it raced): every {@code intervalNanos}, on a daemon thread of its own, off the data path
 * and off the control agent's thread, since a sweep walks the whole index
 * ({@link IndexScanner#clearStaleLocks}). What it cleared goes to {@code cleared} (the agent counts it).
 */
public final class LockSweeper implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(LockSweeper.class.getName());

    private final IndexScanner scanner;
    private final LongPredicate isLive;
    private final IntConsumer cleared;
    private final long intervalNanos;
    private final Thread thread;
    private volatile boolean closed;

    public LockSweeper(final IndexScanner scanner, final LongPredicate isLive, final IntConsumer cleared,
        final long intervalNanos)
    {
        this.scanner = scanner;
        this.isLive = isLive;
        this.cleared = cleared;
        this.intervalNanos = intervalNanos;
        thread = Thread.ofPlatform().daemon().name("rdmakv-lock-sweeper").unstarted(this::loop);
    }

    public LockSweeper start()
    {
        thread.start();
        return this;
    }

    /** One sweep now, on the caller's thread; returns the locks it cleared. */
    public synchronized int sweep()
    {
        if (closed)
        {
            return 0;
        }
        final int n = scanner.clearStaleLocks(isLive);
        if (n > 0)
        {
            LOG.log(System.Logger.Level.WARNING, "cleared " + n + " insert lock(s) held by no live session");
            cleared.accept(n);
        }
        return n;
    }

    private void loop()
    {
        while (!closed)
        {
            LockSupport.parkNanos(this, intervalNanos);
            try
            {
                sweep();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "insert-lock sweep failed: " + e);
            }
        }
    }

    /** Stops the thread and waits for a sweep in progress to end (the index stays mapped until then). */
    @Override
    public void close()
    {
        closed = true;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        synchronized (this)
        {
            // a sweep() called from elsewhere has ended: nothing touches the index after this
        }
    }
}
