package io.rdmakv.server.replication;

import io.rdmakv.server.control.ChainSweeps;
import io.rdmakv.server.space.SegmentMarks;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node's part in moving a partition, as far as it is built (docs/growth.md §14, step 6): the freeze on a primary
 * ({@link PartitionFreezer}, run on the sweep thread) and the local marks ({@link SegmentMarks}). The marks run when
 * the node applies a map ({@code cluster.MoveMarks}); the freeze when the source primary applies a move's FREEZE
 * ({@code cluster.MoveRole}), and from tests through {@code KvServer#partitionMoves}. Segments are packed as {@code
 * KeyHash#segment} (base and count in groups).
 */
public final class PartitionMoves implements AutoCloseable
{
    private static final long FREEZE_TIMEOUT_SECONDS = 60;

    private final PartitionFreezer freezer;
    private final ChainSweeps sweeps;
    private final SegmentMarks marks;
    /** Freezes decided under a map older than this epoch are given up. */
    private volatile long cancelledBelow;
    /** Freezes queued or running on the sweep thread. */
    private final java.util.concurrent.atomic.AtomicInteger freezes = new java.util.concurrent.atomic.AtomicInteger();

    public PartitionMoves(final PartitionFreezer freezer, final ChainSweeps sweeps, final SegmentMarks marks)
    {
        this.freezer = freezer;
        this.sweeps = sweeps;
        this.marks = marks;
    }

    /**
     * Freezes {@code segment} on this node (a group's primary) and its backups, in chain order, on the sweep thread,
     * and waits for it.
     *
     * @throws IllegalStateException when it failed (the cause says why) or took over a minute
     */
    public PartitionFreezer.Frozen freeze(final long segment)
    {
        return freeze(segment, Long.MAX_VALUE);
    }

    /**
     * As {@link #freeze(long)}, for a move decided under the map of epoch {@code ticket}: given up (a {@link
     * FreezeCancelledException}) once {@link #cancelFreezes} named a later epoch, before it began or at its next
     * chunk.
     */
    public PartitionFreezer.Frozen freeze(final long segment, final long ticket)
    {
        return freeze(new long[] {segment}, ticket);
    }

    /** As {@link #freeze(long, long)}, for every segment of {@code segments} over one set of backup sessions. */
    public PartitionFreezer.Frozen freeze(final long[] segments, final long ticket)
    {
        try
        {
            freezes.incrementAndGet();
            return sweeps.onSweepThread(() ->
            {
                try
                {
                    return freezer.freeze(segments, () -> ticket < cancelledBelow);
                }
                finally
                {
                    freezes.decrementAndGet();
                }
            }).get(FREEZE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while freezing", e);
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof FreezeCancelledException cancelled)
            {
                throw cancelled;
            }
            throw new IllegalStateException("the freeze failed: " + e.getCause().getMessage(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("the freeze took over " + FREEZE_TIMEOUT_SECONDS + " s", e);
        }
    }

    /**
     * Cancels every freeze decided under a map older than {@code epoch} and waits until none runs (the sweep thread
     * passed the one under way): after this, no CAS of such a freeze executes. Call before clearing MOVING for an
     * abandoned move (applying the map of {@code epoch}).
     *
     * @throws IllegalStateException when the sweep thread did not get there within a minute
     */
    public void cancelFreezes(final long epoch)
    {
        cancelledBelow = Math.max(cancelledBelow, epoch);
        if (freezes.get() == 0)
        {
            return; // none queued or running: any later one sees the cancel before it begins
        }
        try
        {
            sweeps.onSweepThread(() -> null).get(FREEZE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while cancelling freezes", e);
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("cancelling freezes: the sweep thread did not answer: " + e, e);
        }
    }

    /** Clears MOVING over {@code segment} on this node only ({@link SegmentMarks#clearMoving}). */
    public long clearMoving(final long segment)
    {
        return marks.clearMoving(segment);
    }

    /** Marks {@code segment}'s groups MOVED at switch epoch {@code epoch} on this node only. */
    public long markMoved(final long segment, final long epoch)
    {
        return marks.markMoved(segment, epoch);
    }

    /** Zeroes {@code segment} on this node only and returns the blocks its slots named ({@link SegmentMarks#zeroNaming}). */
    public java.util.List<io.rdmakv.server.space.Extent> zeroNaming(final long segment)
    {
        return marks.zeroNaming(segment);
    }

    /** Zeroes {@code segment} (slots and headers) on this node only. */
    public long zero(final long segment)
    {
        return marks.zero(segment);
    }

    /** Frees the freezer's buffer (after the sweep thread stopped). */
    @Override
    public void close()
    {
        freezer.close();
    }
}
