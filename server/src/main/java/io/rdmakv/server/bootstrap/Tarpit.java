package io.rdmakv.server.bootstrap;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the refusals of throttled wrong tokens wait before they are answered, on their connection's own
 * (virtual) thread and holding its connection slot. What it holds is bounded, so that a flood cannot turn
 * the delay into a hold on the node: at most {@link #PER_ADDRESS} refusals of one address and
 * {@code capacity} in all (a small share of the connection limit, {@link #capacityFor}); a refusal over either
 * is answered at once. Thread-safe.
 */
final class Tarpit
{
    static final int PER_ADDRESS = 2;
    /** The most connections it holds, whatever the connection limit. */
    static final int MAX_CAPACITY = 64;

    private final int capacity;
    private final Map<InetAddress, Integer> held = new HashMap<>();
    private final AtomicLong overflowed = new AtomicLong();
    private int total;

    Tarpit(final int capacity)
    {
        this.capacity = capacity;
    }

    /** A sixteenth of {@code maxConnections}, at most {@link #MAX_CAPACITY} (none under 16 connections). */
    static int capacityFor(final int maxConnections)
    {
        return Math.min(MAX_CAPACITY, maxConnections / 16);
    }

    /**
     * Waits {@code delayNanos} when there is room for one more refusal of {@code address}, and returns true;
     * returns false at once (counted) when there is not.
     */
    boolean hold(final InetAddress address, final long delayNanos)
    {
        if (!enter(address))
        {
            overflowed.incrementAndGet();
            return false;
        }
        try
        {
            TimeUnit.NANOSECONDS.sleep(delayNanos);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            leave(address);
        }
        return true;
    }

    /** Throttled refusals answered at once since start because the tarpit was full (for that address or all). */
    long overflowed()
    {
        return overflowed.get();
    }

    /** Refusals waiting now. */
    synchronized int held()
    {
        return total;
    }

    private synchronized boolean enter(final InetAddress address)
    {
        final int mine = held.getOrDefault(address, 0);
        if (total >= capacity || mine >= PER_ADDRESS)
        {
            return false;
        }
        held.put(address, mine + 1);
        total++;
        return true;
    }

    private synchronized void leave(final InetAddress address)
    {
        final int mine = held.get(address);
        if (mine == 1)
        {
            held.remove(address);
        }
        else
        {
            held.put(address, mine - 1);
        }
        total--;
    }
}
