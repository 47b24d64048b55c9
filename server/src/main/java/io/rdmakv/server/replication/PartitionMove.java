package io.rdmakv.server.replication;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.VersionSalt;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * What one {@link PartitionCopier} moves: a batch of partitions from group A (the source, read at its primary)
 * to this node's group B (docs/growth.md §7). Explicit values, as the move's map record will give them.
 *
 * @param source         A's primary (its bootstrap address)
 * @param sourceGroup    A's group id (what the versions of A's keys are salted with, {@link VersionSalt})
 * @param epoch          the move's map epoch: A's primary must serve at least this one
 * @param partitionCount the map's partition count (a key's partition is its hash modulo it)
 * @param partitions     the partitions of the batch
 * @param sourceSegments each partition's segment {@code X_A} in A's index (packed, {@link KeyHash#segment})
 * @param targetSegments each partition's segment {@code X_B} in this node's index, private and unused until OPEN
 * @param backups        B's backups in chain order (first backup first)
 * @param clock          what chunks are timed with (the half-grace rule); tests drive it
 */
public record PartitionMove(
    InetSocketAddress source,
    int sourceGroup,
    long epoch,
    int partitionCount,
    int[] partitions,
    long[] sourceSegments,
    long[] targetSegments,
    List<InetSocketAddress> backups,
    NanoClock clock)
{
    public PartitionMove
    {
        if (partitions.length == 0 || partitions.length != sourceSegments.length ||
            partitions.length != targetSegments.length)
        {
            throw new IllegalArgumentException("a move of " + partitions.length + " partitions needs a source and a " +
                "target segment for each (" + sourceSegments.length + ", " + targetSegments.length + " given)");
        }
        for (int i = 0; i < partitions.length; i++)
        {
            if (partitions[i] < 0 || partitions[i] >= partitionCount || KeyHash.segmentCount(sourceSegments[i]) < 2 ||
                KeyHash.segmentCount(targetSegments[i]) < 2)
            {
                throw new IllegalArgumentException("partition " + partitions[i] + " of " + partitionCount +
                    " with segments of " + KeyHash.segmentCount(sourceSegments[i]) + " and " +
                    KeyHash.segmentCount(targetSegments[i]) + " groups: segments need at least 2");
            }
        }
        partitions = partitions.clone();
        sourceSegments = sourceSegments.clone();
        targetSegments = targetSegments.clone();
        backups = List.copyOf(backups);
    }

    /** A move timed with the system clock. */
    public PartitionMove(final InetSocketAddress source, final int sourceGroup, final long epoch,
        final int partitionCount, final int[] partitions, final long[] sourceSegments, final long[] targetSegments,
        final List<InetSocketAddress> backups)
    {
        this(source, sourceGroup, epoch, partitionCount, partitions, sourceSegments, targetSegments, backups,
            SystemNanoClock.INSTANCE);
    }

    /** The salt of the versions of partition {@code partitions()[k]}'s keys on A ({@link VersionSalt}). */
    public long sourceSalt(final int k)
    {
        return VersionSalt.of(partitions[k], sourceGroup, sourceSegments[k]);
    }

    /** Slots of every source segment together: the shadow table's length. */
    public long sourceSlots()
    {
        long slots = 0;
        for (final long segment : sourceSegments)
        {
            slots += KeyHash.segmentCount(segment) * io.rdmakv.common.layout.BucketDescriptor.SLOTS_PER_GROUP;
        }
        return slots;
    }
}
