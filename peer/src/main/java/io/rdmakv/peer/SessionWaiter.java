package io.rdmakv.peer;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.WorkCompletions;
import io.rdmakv.verbs.util.AdaptiveSpin;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * How one lane waits for completions ({@link WaitStrategy}). The adaptive wait follows its
 * {@link AdaptiveSpin} policy: it spins for about one round trip of this lane (capped), then blocks in
 * {@link CompletionQueue#await}; no spin while more waiters of the process wait than it has cores, nor while
 * fewer than half of its recent spins caught their completion, apart from one probing wait in
 * {@value #PROBE_EVERY}. Allocates nothing and throws nothing.
 */
public final class SessionWaiter
{
    static final int HITS_ONE = AdaptiveSpin.HITS_ONE;
    static final int PROBE_EVERY = AdaptiveSpin.PROBE_EVERY;

    private final WaitStrategy strategy;
    private final NanoClock clock;
    private final BusySpinIdleStrategy spin = BusySpinIdleStrategy.INSTANCE;
    private final AdaptiveSpin policy = new AdaptiveSpin();

    public SessionWaiter(final WaitStrategy strategy)
    {
        this(strategy, SystemNanoClock.INSTANCE);
    }

    /** With the clock that times the spin and the deadline (the same timeline as {@link System#nanoTime()}). */
    public SessionWaiter(final WaitStrategy strategy, final NanoClock clock)
    {
        this.strategy = strategy;
        this.clock = clock;
    }

    public WaitStrategy strategy()
    {
        return strategy;
    }

    /** Feeds one measured round trip (post to completion) into the estimate. */
    public void roundTrip(final long nanos)
    {
        policy.roundTrip(nanos);
    }

    /** How often this lane's recent spins caught their completion, {@link #HITS_ONE} being always. */
    public int spinHits()
    {
        return policy.spinHits();
    }

    /** How long the adaptive wait spins now: about one round trip, capped. */
    public long spinBudgetNanos()
    {
        return policy.spinBudgetNanos();
    }

    /**
     * Waits until {@code cq} yields completions into {@code completions} or {@code deadline}
     * ({@link System#nanoTime()}) passes; {@code since} is when the awaited work was posted. Returns the
     * count, 0 at the deadline, or a negative errno.
     */
    public int await(final CompletionQueue cq, final WorkCompletions completions, final long since, final long deadline)
    {
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
        final boolean spinNow = policy.enter();
        try
        {
            final long spinEnd = since + policy.spinBudgetNanos();
            if (spinNow && spinEnd - clock.nanoTime() > 0)
            {
                final int n = spinUntil(cq, completions, deadline - spinEnd < 0 ? deadline : spinEnd);
                policy.spun(n != 0);
                if (n != 0)
                {
                    return n;
                }
            }
            return block(cq, completions, deadline);
        }
        finally
        {
            policy.exit();
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
                return cq.poll(completions);
            }
            // The queue's await polls after arming: no poll of its own before it (one system call less per wait).
            final int n = cq.await(completions, left);
            if (n != 0)
            {
                return n;
            }
        }
    }
}
