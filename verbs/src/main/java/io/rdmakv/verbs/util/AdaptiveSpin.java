package io.rdmakv.verbs.util;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The adaptive wait's policy for one waiter (a client lane, a latency probe): how long to spin for a
 * completion before blocking. It spins for about one round trip (an exponentially weighted average of the
 * waiter's last round trips, capped at {@value #SPIN_CAP_MICROS} us). It does not spin while more waiters of
 * the process wait than it has cores, nor while fewer than half of its recent spins caught their completion
 * (an overloaded machine, a slow peer: spinning then only takes the CPU the peer needs), apart from one
 * probing wait in {@value #PROBE_EVERY}. The spinning and blocking themselves are the caller's.
 *
 * <p>One wait: {@link #enter()}, then, if it said spin, spin until {@code posted + }{@link #spinBudgetNanos()}
 * and tell {@link #spun(boolean)} whether the spin caught the completion, then {@link #exit()} (in a
 * {@code finally}). Feed each measured round trip to {@link #roundTrip(long)}. Not thread-safe (one per
 * waiter); allocates nothing and throws nothing.
 */
public final class AdaptiveSpin
{
    /** The longest an adaptive wait spins before it blocks, in microseconds. */
    public static final long SPIN_CAP_MICROS = 50;
    public static final long SPIN_CAP_NANOS = TimeUnit.MICROSECONDS.toNanos(SPIN_CAP_MICROS);
    /** Where the round-trip estimate starts: a loopback round trip on a quiet machine. */
    public static final long INITIAL_ROUND_TRIP_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /** The spin hit ratio in fixed point: {@value} is 1.0. */
    public static final int HITS_ONE = 1024;
    /** A waiter that stopped spinning still spins on one wait in this many, to notice when spinning pays again. */
    public static final int PROBE_EVERY = 64;
    /** Weight of a new sample in the estimates: 1 / 2^{@value}. */
    private static final int ESTIMATE_SHIFT = 3;
    /** Below half its spins catching the completion, a waiter stops spinning (it only delays the peer it waits for). */
    private static final int HITS_TO_SPIN = HITS_ONE / 2;
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /**
     * Waiters of this process inside a wait right now: when they outnumber the cores, a spinning waiter
     * only steals the CPU that the others, and the peer, need; then every waiter blocks at once.
     */
    private static final AtomicInteger WAITING = new AtomicInteger();

    private long roundTripNanos = INITIAL_ROUND_TRIP_NANOS;
    private int spinHits = HITS_ONE;
    private int waits;

    /** The running round-trip estimate. */
    public long roundTripNanos()
    {
        return roundTripNanos;
    }

    /** Feeds one measured round trip (post to completion) into the estimate. */
    public void roundTrip(final long nanos)
    {
        roundTripNanos += (Math.max(0, nanos) - roundTripNanos) >> ESTIMATE_SHIFT;
    }

    /** How long a wait spins, counted from the post: about one round trip, capped. */
    public long spinBudgetNanos()
    {
        return Math.min(SPIN_CAP_NANOS, roundTripNanos + (roundTripNanos >> 2));
    }

    /** How often the recent spins caught their completion, {@link #HITS_ONE} being always. */
    public int spinHits()
    {
        return spinHits;
    }

    /**
     * Begins one wait (counts this waiter among those waiting until {@link #exit()}); returns whether it
     * should spin: not when the waiters outnumber the cores, nor when recent spins mostly missed and this
     * is not a probing wait.
     */
    public boolean enter()
    {
        final int busy = WAITING.incrementAndGet();
        final boolean worthIt = spinHits >= HITS_TO_SPIN || ++waits % PROBE_EVERY == 0;
        return busy <= CORES && worthIt;
    }

    /** Records whether this wait's spin caught its completion. */
    public void spun(final boolean caught)
    {
        spinHits += caught ? (HITS_ONE - spinHits) >> ESTIMATE_SHIFT : -(spinHits >> ESTIMATE_SHIFT);
    }

    /** Ends the wait begun by {@link #enter()}. */
    public void exit()
    {
        WAITING.decrementAndGet();
    }
}
