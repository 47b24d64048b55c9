package io.rdmakv.client.internal;

import io.rdmakv.client.WaitStrategy;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How one lane waits for completions ({@link WaitStrategy}). The adaptive wait spins for about one
 * round trip of this lane (an exponentially weighted average of the lane's last round trips, capped), then
 * blocks in {@link CompletionQueue#await}. It does not spin while more lanes of the process wait than it
 * has cores, nor while fewer than half of its recent spins caught their completion (an overloaded machine,
 * a slow peer: spinning then only takes the CPU the peer needs), apart from one probing wait in
 * {@value #PROBE_EVERY}. Allocates nothing and throws nothing.
 */
final class LaneWaiter
{
    /** Where the round-trip estimate starts: a loopback round trip on a quiet machine. */
    static final long INITIAL_ROUND_TRIP_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    static final long SPIN_CAP_NANOS = TimeUnit.MICROSECONDS.toNanos(WaitStrategy.ADAPTIVE_SPIN_CAP_MICROS);
    /** Weight of a new sample in the estimate: 1 / 2^{@value}. */
    private static final int ESTIMATE_SHIFT = 3;
    /** The spin hit ratio in fixed point: {@value} is 1.0. */
    static final int HITS_ONE = 1024;
    /** Below half its spins catching the completion, a lane stops spinning (it only delays the peer it waits for). */
    private static final int HITS_TO_SPIN = HITS_ONE / 2;
    /** A lane that stopped spinning still spins on one wait in this many, to notice when spinning pays again. */
    static final int PROBE_EVERY = 64;
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /**
     * Lanes of this process waiting (adaptively) right now: when they outnumber the cores, a spinning lane
     * only steals the CPU that the others, and the node, need; then every lane blocks at once.
     */
    private static final AtomicInteger WAITING = new AtomicInteger();

    private final WaitStrategy strategy;
    private final NanoClock clock;
    private final BusySpinIdleStrategy spin = BusySpinIdleStrategy.INSTANCE;
    private long roundTripNanos = INITIAL_ROUND_TRIP_NANOS;
    private int spinHits = HITS_ONE;
    private int waits;

    LaneWaiter(final WaitStrategy strategy)
    {
        this(strategy, SystemNanoClock.INSTANCE);
    }

    /** With the clock that times the spin and the deadline (the same timeline as {@link System#nanoTime()}). */
    LaneWaiter(final WaitStrategy strategy, final NanoClock clock)
    {
        this.strategy = strategy;
        this.clock = clock;
    }

    WaitStrategy strategy()
    {
        return strategy;
    }

    /** This lane's running round-trip estimate. */
    long roundTripNanos()
    {
        return roundTripNanos;
    }

    /** Feeds one measured round trip (post to completion) into the estimate. */
    void roundTrip(final long nanos)
    {
        roundTripNanos += (Math.max(0, nanos) - roundTripNanos) >> ESTIMATE_SHIFT;
    }

    /** How often this lane's recent spins caught their completion, {@link #HITS_ONE} being always. */
    int spinHits()
    {
        return spinHits;
    }

    /** How long the adaptive wait spins now: about one round trip, capped. */
    long spinBudgetNanos()
    {
        return Math.min(SPIN_CAP_NANOS, roundTripNanos + (roundTripNanos >> 2));
    }

    /**
     * Waits until {@code cq} yields completions into {@code completions} or {@code deadline}
     * ({@link System#nanoTime()}) passes; {@code since} is when the awaited work was posted. Returns the
     * count, 0 at the deadline, or a negative errno.
     */
    int await(final CompletionQueue cq, final WorkCompletions completions, final long since, final long deadline)
    {
        final int n = cq.poll(completions);
        if (n != 0)
        {
            return n;
        }
        return switch (strategy)
        {
            case BUSY_SPIN -> spinUntil(cq, completions, deadline);
            case BLOCKING -> block(cq, completions, deadline);
            case ADAPTIVE -> adaptive(cq, completions, since, deadline);
        };
    }

    private int adaptive(final CompletionQueue cq, final WorkCompletions completions, final long since,
        final long deadline)
    {
        final int busy = WAITING.incrementAndGet();
        try
        {
            final long spinEnd = since + spinBudgetNanos();
            final boolean worthIt = spinHits >= HITS_TO_SPIN || ++waits % PROBE_EVERY == 0;
            if (busy <= CORES && worthIt && spinEnd - clock.nanoTime() > 0)
            {
                final int n = spinUntil(cq, completions, deadline - spinEnd < 0 ? deadline : spinEnd);
                spinHits += n != 0 ? (HITS_ONE - spinHits) >> ESTIMATE_SHIFT : -(spinHits >> ESTIMATE_SHIFT);
                if (n != 0)
                {
                    return n;
                }
            }
            return block(cq, completions, deadline);
        }
        finally
        {
            WAITING.decrementAndGet();
        }
    }

    private int spinUntil(final CompletionQueue cq, final WorkCompletions completions, final long end)
    {
        while (true)
        {
            final int n = cq.poll(completions);
            if (n != 0 || clock.nanoTime() - end >= 0)
            {
                return n;
            }
            spin.idle();
        }
    }

    private int block(final CompletionQueue cq, final WorkCompletions completions, final long deadline)
    {
        while (true)
        {
            final long left = deadline - clock.nanoTime();
            if (left <= 0)
            {
                return 0;
            }
            final int n = cq.await(completions, left);
            if (n != 0)
            {
                return n;
            }
        }
    }
}
