package io.rdmakv.common.cluster;

import io.rdmakv.common.hash.KeyHash;

/**
 * A segment a replica group gave up at a move's SWITCH and has not yet reclaimed (docs/growth.md §10): its
 * nodes keep it marked MOVED and count its words as live until every member reported it reclaimed; only then does
 * the planner drop it and may place another segment there. The batch id links it to the {@code moves/<id>}
 * reports ({@code "reclaimed"}).
 */
public record RetiredSegment(int group, int partition, long segment, long switchEpoch, long batch)
{
    public RetiredSegment
    {
        if (group < 0 || partition < 0 || switchEpoch < 0 || batch < 0)
        {
            throw new InvalidClusterMapException("retired segment of group " + group + ", partition " + partition +
                ", switch epoch " + switchEpoch + ", batch " + batch + ": negative");
        }
        if (KeyHash.segmentBase(segment) + KeyHash.segmentCount(segment) > KeyHash.MAX_SEGMENT_FIELD + 1)
        {
            throw new InvalidClusterMapException("retired segment of group " + group + ", partition " + partition +
                " ends past 2^32 groups");
        }
    }

    @Override
    public String toString()
    {
        return "retired{group " + group + " partition " + partition + " base " + KeyHash.segmentBase(segment) + ", " +
            KeyHash.segmentCount(segment) + " groups, switched at " + switchEpoch + ", batch " + batch + "}";
    }
}
