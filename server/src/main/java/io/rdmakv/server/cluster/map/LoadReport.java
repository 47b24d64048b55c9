package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A node's index segments at or above the growth threshold (docs/growth.md §11): {@code load/<nodeId>} holds
 * {@code {"epoch": 9, "over": [{"partition": 5, "base": 1024, "groups": 1024, "used": 11000}]}}, written by its
 * group's primary from its census ({@code SegmentLoads}) when a partition first crosses and every 10 s while one is over;
 * absent when none is. {@code epoch}: the map from which the node counted these segments. The coordinator acts on an
 * entry only while the node is the primary of the partition's group and the segment is the partition's in the map
 * ({@link MovePlanner#grow}), so a report of a segment since moved away is ignored.
 */
public record LoadReport(int nodeId, long epoch, List<Over> over)
{
    private static final Set<String> FIELDS = Set.of("epoch", "over");
    private static final Set<String> OVER_FIELDS = Set.of("partition", "base", "groups", "used");

    /** One segment over the threshold: partition {@code partition}'s packed {@code segment}, {@code used} slots used. */
    public record Over(int partition, long segment, long used)
    {
        public Over
        {
            if (partition < 0 || KeyHash.segmentCount(segment) < 2 || used < 0)
            {
                throw new IllegalArgumentException("a load entry needs a partition, a segment of at least 2 groups " +
                    "and a used count: partition " + partition + ", " + KeyHash.segmentCount(segment) + " groups, " +
                    used + " used");
            }
        }

        /** The segment's slots. */
        public long slots()
        {
            return KeyHash.segmentCount(segment) * BucketDescriptor.SLOTS_PER_GROUP;
        }

        @Override
        public String toString()
        {
            return "partition " + partition + " " + used + "/" + slots() + " slots used in segment (" +
                KeyHash.segmentBase(segment) + ", " + KeyHash.segmentCount(segment) + ")";
        }
    }

    public LoadReport
    {
        if (nodeId < 0 || epoch < 0)
        {
            throw new IllegalArgumentException("load report of node " + nodeId + " for epoch " + epoch + ": negative");
        }
        over = List.copyOf(over);
    }

    public byte[] toJson()
    {
        final ObjectNode root = ZkJson.object().put("epoch", epoch);
        final ArrayNode list = root.putArray("over");
        for (final Over o : over)
        {
            list.addObject().put("partition", o.partition()).put("base", KeyHash.segmentBase(o.segment()))
                .put("groups", KeyHash.segmentCount(o.segment())).put("used", o.used());
        }
        return ZkJson.bytes(root);
    }

    /** Parses the report in {@code load/<nodeId>}; throws IllegalArgumentException naming what is wrong. */
    public static LoadReport fromJson(final int nodeId, final byte[] json)
    {
        final String what = "load report of node " + nodeId;
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        final JsonNode list = root.get("over");
        if (!list.isArray())
        {
            throw new IllegalArgumentException(what + ": \"over\" must be an array");
        }
        final List<Over> over = new ArrayList<>();
        for (final JsonNode o : list)
        {
            if (!o.isObject() || o.size() != OVER_FIELDS.size() || !OVER_FIELDS.stream().allMatch(o::has))
            {
                throw new IllegalArgumentException(what + ": each entry of \"over\" must have exactly the fields " +
                    OVER_FIELDS + ", not " + o);
            }
            final long base = ZkJson.longField(o, "base", what);
            final long groups = ZkJson.longField(o, "groups", what);
            if (base < 0 || groups < 2 || base > KeyHash.MAX_SEGMENT_FIELD || groups > KeyHash.MAX_SEGMENT_FIELD)
            {
                throw new IllegalArgumentException(what + ": segment (" + base + ", " + groups + ") out of range");
            }
            over.add(new Over(ZkJson.intField(o, "partition", what), KeyHash.segment(base, groups),
                ZkJson.longField(o, "used", what)));
        }
        return new LoadReport(nodeId, ZkJson.longField(root, "epoch", what), over);
    }
}
