package io.rdmakv.server.replication;

import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A partition copier's way into this node's {@link DataAreaAllocator}, which only the control thread may touch:
 * each call is handed to that thread ({@code control}, the agent's {@code execute}) and waited for. The space is
 * granted to an owner of the node's own ({@link DataAreaAllocator#FIRST_MOVER_OWNER} and up, one per copy), never a
 * session's, so no departure reclaims it and no session's quota counts it (docs/growth.md §7, "mover grants").
 * Thread-safe; used by copier worker threads.
 */
public final class MoverGrants
{
    private static final long WAIT_SECONDS = 10;

    private final DataAreaAllocator allocator;
    private final Executor control;
    private final NanoClock clock;
    private final AtomicLong nextOwner = new AtomicLong(DataAreaAllocator.FIRST_MOVER_OWNER);

    public MoverGrants(final DataAreaAllocator allocator, final Executor control, final NanoClock clock)
    {
        this.allocator = allocator;
        this.control = control;
        this.clock = clock;
    }

    /** A new owner id for one copy's grants. */
    long newOwner()
    {
        return nextOwner.getAndIncrement();
    }

    /** A grant of at least {@code minBytes} and at most {@code preferredBytes} to {@code owner}, or null when none. */
    Extent take(final long owner, final long minBytes, final long preferredBytes)
    {
        return onControl(() -> allocator.grant(minBytes, preferredBytes, clock.nanoTime(), owner));
    }

    /** Gives the blocks {@code offsets[i], lengths[i]} ({@code i < count}) back free at once; the arrays are read on the control thread. */
    void giveBack(final long[] offsets, final int[] lengths, final int count)
    {
        onControl(() ->
        {
            for (int i = 0; i < count; i++)
            {
                allocator.releaseNow(offsets[i], lengths[i]);
            }
            return null;
        });
    }

    /** Gives back everything {@code owner} holds, free at once; returns the bytes. */
    long giveBackAll(final long owner)
    {
        return onControl(() -> allocator.releaseAllNow(owner));
    }

    /**
     * Hands everything {@code owner} holds over to nobody: {@code live} (its blocks a slot names, sorted by offset)
     * stays granted to {@link DataAreaAllocator#NO_OWNER}, the rest waits out the quarantine; returns those bytes.
     */
    long handOver(final long owner, final java.util.List<Extent> live)
    {
        return onControl(() -> allocator.reclaim(owner, live, clock.nanoTime()));
    }

    /** Bytes the allocator can grant now (asked on the control thread). */
    public long freeBytes()
    {
        return onControl(allocator::freeBytes);
    }

    /** Bytes {@code owner} holds (asked on the control thread). */
    long heldBy(final long owner)
    {
        return onControl(() -> allocator.heldBy(owner));
    }

    private <T> T onControl(final java.util.function.Supplier<T> task)
    {
        final CompletableFuture<T> answer = new CompletableFuture<>();
        control.execute(() ->
        {
            try
            {
                answer.complete(task.get());
            }
            catch (final RuntimeException e)
            {
                answer.completeExceptionally(e);
            }
        });
        try
        {
            return answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new CopyFailedException("interrupted while the control thread granted or took back mover space", e);
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new CopyFailedException("the control thread did not grant or take back mover space: " + e, e);
        }
    }
}
