package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * An operator's request to the coordinator, in the {@code rebalance/request} znode:
 * {@code {"moves": [{"partitions": [3, 5], "target": 1, "groups": 0}], "cancel": [7000]}}: partitions to move to a
 * group ({@code groups}: the size of each target segment in bucket groups; 0 or absent: the size of the partition's
 * segment now), and batches to abort. The coordinator takes it (deletes the znode at {@code version}, in the same
 * transaction as the map that acts on it); one it cannot act on stays, and is logged, until it can or is replaced.
 */
public record MoveRequest(int version, List<Wanted> moves, List<Long> cancel)
{
    private static final Set<String> FIELDS = Set.of();
    private static final Set<String> OPTIONAL = Set.of("moves", "cancel");
    private static final Set<String> MOVE_FIELDS = Set.of("partitions", "target");

    /** Partitions to move to group {@code target}, into segments of {@code groups} (0: the size they have). */
    public record Wanted(int[] partitions, int target, long groups)
    {
        public Wanted
        {
            partitions = partitions.clone();
            if (partitions.length == 0 || target < 0 || groups < 0 || groups == 1)
            {
                throw new IllegalArgumentException("a requested move needs partitions, a target group and a segment " +
                    "size of 0 (the same) or at least 2 groups: " + Arrays.toString(partitions) + " -> " + target +
                    ", " + groups + " groups");
            }
        }

        @Override
        public int[] partitions()
        {
            return partitions.clone();
        }

        @Override
        public boolean equals(final Object o)
        {
            return o instanceof Wanted w && Arrays.equals(partitions, w.partitions) && target == w.target &&
                groups == w.groups;
        }

        @Override
        public int hashCode()
        {
            return Arrays.hashCode(partitions) * 31 + target;
        }

        @Override
        public String toString()
        {
            return Arrays.toString(partitions) + " -> group " + target + (groups == 0 ? "" : " (" + groups + " groups)");
        }
    }

    public MoveRequest
    {
        moves = List.copyOf(moves);
        cancel = List.copyOf(cancel);
    }

    public byte[] toJson()
    {
        final ObjectNode root = ZkJson.object();
        final ArrayNode m = root.putArray("moves");
        for (final Wanted w : moves)
        {
            final ObjectNode o = m.addObject();
            final ArrayNode p = o.putArray("partitions");
            for (final int partition : w.partitions)
            {
                p.add(partition);
            }
            o.put("target", w.target);
            if (w.groups != 0)
            {
                o.put("groups", w.groups);
            }
        }
        final ArrayNode c = root.putArray("cancel");
        cancel.forEach(c::add);
        return ZkJson.bytes(root);
    }

    /** Parses the request read at znode version {@code version}; IllegalArgumentException naming what is wrong. */
    public static MoveRequest fromJson(final int version, final byte[] json)
    {
        final String what = "move request";
        final JsonNode root = ZkJson.object(json, what, FIELDS, OPTIONAL);
        final List<Wanted> moves = new ArrayList<>();
        final JsonNode m = root.get("moves");
        if (m != null)
        {
            if (!m.isArray())
            {
                throw new IllegalArgumentException(what + ": \"moves\" must be an array");
            }
            int i = 0;
            for (final JsonNode o : m)
            {
                final String where = what + " move #" + i++;
                final JsonNode checked = ZkJson.object(ZkJson.bytes(o), where, MOVE_FIELDS, Set.of("groups"));
                final JsonNode partitions = checked.get("partitions");
                if (!partitions.isArray())
                {
                    throw new IllegalArgumentException(where + ": \"partitions\" must be an array");
                }
                final int[] ids = new int[partitions.size()];
                for (int p = 0; p < ids.length; p++)
                {
                    if (!partitions.get(p).canConvertToInt() || !partitions.get(p).isIntegralNumber())
                    {
                        throw new IllegalArgumentException(where + ": partition " + partitions.get(p) + " is not one");
                    }
                    ids[p] = partitions.get(p).intValue();
                }
                moves.add(new Wanted(ids, ZkJson.intField(checked, "target", where),
                    checked.has("groups") ? ZkJson.longField(checked, "groups", where) : 0));
            }
        }
        final List<Long> cancel = new ArrayList<>();
        final JsonNode c = root.get("cancel");
        if (c != null)
        {
            if (!c.isArray())
            {
                throw new IllegalArgumentException(what + ": \"cancel\" must be an array of batch ids");
            }
            for (final JsonNode id : c)
            {
                if (!id.isIntegralNumber() || !id.canConvertToLong())
                {
                    throw new IllegalArgumentException(what + ": batch " + id + " is not a batch id");
                }
                cancel.add(id.longValue());
            }
        }
        return new MoveRequest(version, moves, cancel);
    }
}
