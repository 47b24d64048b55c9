package io.rdmakv.server.bootstrap;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.ScheduledFuture;

/**
 * Ends the lease of a TLS session whose heartbeats do not arrive whole in time. Inside a TLS record every
 * byte that arrives restarts the socket's read timeout, and the read returns only once the record is whole,
 * so per-read timeouts cannot bound it: a trickle of one byte a second would hold a lease for as long as it
 * lasts. The watchdog wakes on the listener's deadline timer when the lease would end and, unless a whole
 * heartbeat renewed it meanwhile ({@link #renewed}), shuts the input of the plain socket under TLS. The
 * blocked read ends (TLS, which cannot resume a record cut short, closes the connection with an alert), and
 * the reader reports an expired lease ({@link #expired}), which the session's owner fences as any other.
 * Renewing is a volatile write; the timer runs once per lease timeout at most. Thread-safe.
 */
final class LeaseWatchdog implements Runnable
{
    private final Socket plain;
    private final long leaseTimeoutNanos;
    private volatile long renewedAt;
    private volatile boolean expired;
    private ScheduledFuture<?> next;
    private boolean stopped;

    /** @param plain the socket under TLS, whose input is shut when the lease ends */
    LeaseWatchdog(final Socket plain, final long leaseTimeoutNanos)
    {
        this.plain = plain;
        this.leaseTimeoutNanos = leaseTimeoutNanos;
    }

    /** Starts watching a lease renewed at {@code nowNanos}. */
    synchronized void start(final long nowNanos)
    {
        renewedAt = nowNanos;
        next = BootstrapListener.schedule(this, leaseTimeoutNanos);
    }

    /** A whole heartbeat arrived at {@code nowNanos}. */
    void renewed(final long nowNanos)
    {
        renewedAt = nowNanos;
    }

    /** Whether the lease ran out and the input was shut. */
    boolean expired()
    {
        return expired;
    }

    /** The session ended: no more wake-ups. */
    synchronized void stop()
    {
        stopped = true;
        if (next != null)
        {
            next.cancel(false);
        }
    }

    @Override
    public synchronized void run()
    {
        if (stopped)
        {
            return;
        }
        final long left = renewedAt + leaseTimeoutNanos - System.nanoTime();
        if (left > 0)
        {
            next = BootstrapListener.schedule(this, left);
            return;
        }
        expired = true;
        try
        {
            plain.shutdownInput();
        }
        catch (final IOException e)
        {
            // already closed: the read has ended anyway
        }
    }
}
