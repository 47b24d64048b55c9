package io.rdmakv.server.replication;

import io.rdmakv.server.control.ChainSweeps;
import io.rdmakv.server.space.SegmentMarks;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A node's part in moving a partition, as far as it is built (docs/growth.md §14, step 6): the freeze on a primary
 * ({@link PartitionFreezer}, run on the sweep thread) and the local marks ({@link SegmentMarks}). The marks run when
 * the node applies a map ({@code cluster.MoveMarks}); the freeze only from tests yet, through {@code
 * KvServer#partitionMoves}. Segments are packed as {@code
 * KeyHash#segment} (base and count in groups).
 */
public final class PartitionMoves implements AutoCloseable
{
    private static final long FREEZE_TIMEOUT_SECONDS = 60;

    private final PartitionFreezer freezer;
    private final ChainSweeps sweeps;
    private final SegmentMarks marks;

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
        try
        {
            return sweeps.onSweepThread(() -> freezer.freeze(segment)).get(FREEZE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while freezing", e);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException("the freeze failed: " + e.getCause().getMessage(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("the freeze took over " + FREEZE_TIMEOUT_SECONDS + " s", e);
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
