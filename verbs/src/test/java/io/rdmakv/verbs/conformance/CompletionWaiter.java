package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.WorkCompletions;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Waits for completions, one at a time (a one-entry {@link WorkCompletions}), so that "exactly N"
 * never swallows the N+1st. Every wait is bounded: running out of time fails the test, it never hangs.
 * One waiter per thread.
 */
final class CompletionWaiter implements AutoCloseable
{
    private final WorkCompletions one = WorkCompletions.allocate(1);
    private final long waitNanos;

    CompletionWaiter()
    {
        this(VerbsFixture.WAIT_NANOS);
    }

    CompletionWaiter(final long waitNanos)
    {
        this.waitNanos = waitNanos;
    }

    /** The next {@code n} completions of {@code cq}, in the order the queue returned them. */
    List<Completion> await(final CompletionQueue cq, final int n)
    {
        final List<Completion> got = new ArrayList<>(n);
        final long deadline = System.nanoTime() + waitNanos;
        while (got.size() < n)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                fail("timed out after " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms waiting for " + n +
                    " completion(s); got " + got.size() + ": " + got);
            }
            final int rc = cq.await(one, left);
            if (rc < 0)
            {
                fail("CompletionQueue.await failed: " + Errno.name(-rc) + "; completions so far: " + got);
            }
            if (rc > 1)
            {
                fail("CompletionQueue.await wrote " + rc + " completions into an array of capacity 1");
            }
            if (rc == 1)
            {
                got.add(Completion.of(one.at(0)));
            }
        }
        return got;
    }

    Completion awaitOne(final CompletionQueue cq)
    {
        return await(cq, 1).getFirst();
    }

    /** The next completion of {@code cq} if one arrives within {@code nanos}, else null. */
    Completion awaitOneWithin(final CompletionQueue cq, final long nanos)
    {
        final long deadline = System.nanoTime() + nanos;
        long left = nanos;
        while (left > 0)
        {
            final int rc = cq.await(one, left);
            if (rc < 0)
            {
                fail("CompletionQueue.await failed: " + Errno.name(-rc));
            }
            if (rc > 0)
            {
                return Completion.of(one.at(0));
            }
            left = deadline - System.nanoTime();
        }
        return null;
    }

    /** Fails when {@code cq} holds a completion right now. */
    void assertEmpty(final CompletionQueue cq, final String why)
    {
        final int rc = cq.poll(one);
        if (rc < 0)
        {
            fail("CompletionQueue.poll failed: " + Errno.name(-rc));
        }
        if (rc > 0)
        {
            fail("unexpected completion (" + why + "): " + Completion.of(one.at(0)));
        }
    }

    @Override
    public void close()
    {
        one.close();
    }
}
