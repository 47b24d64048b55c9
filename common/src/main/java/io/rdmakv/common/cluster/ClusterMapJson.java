package io.rdmakv.common.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.hash.KeyHash;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The JSON form of a {@link ClusterMap}, read and written with Jackson's tree model so that every mistake
 * gets a message naming the field:
 *
 * <pre>
 * {
 *   "epoch": 3,
 *   "partitions": 64,                      optional, default 64
 *   "nodes": [
 *     {"id": 0, "host": "10.0.0.1", "port": 7400},
 *     {"id": 1, "host": "10.0.0.2", "port": 7400}
 *   ],
 *   "assignment": [0, 1, 0, 1, ...]        optional: node id per partition, default round-robin
 * }
 * </pre>
 *
 * A replicated map (the form ZooKeeper holds) has, instead of {@code assignment}:
 * <pre>
 *   "replicas": 2,
 *   "groups": [{"id": 0, "members": [1, 2], "copying": [], "sealed": false}, ...],
 *   "partition_groups": [0, 1, 0, 1, ...],  group id per partition
 *   "segments": [0, 4, 0, 4, 4, 4, ...]     optional: each partition's index segment on its group's nodes in
 *                                          turn, base then count (in bucket groups); absent: no segment table
 *   "moves": [{"id": 7000, "source": 0, "target": 1, "phase": "copy", "phase_epoch": 7,
 *              "partitions": [3, 5], "segments": [8, 4, 12, 4]}, ...]        optional: {@link MoveBatch}es
 *   "retired": [{"group": 0, "partition": 3, "segment": [12, 4], "switch_epoch": 9, "batch": 7000}, ...]
 *                                          optional: {@link RetiredSegment}s
 * </pre>
 *
 * Unknown fields, repeated fields and trailing content are rejected (a misspelt field should not be
 * silently ignored).
 */
public final class ClusterMapJson
{
    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();
    private static final Set<String> MAP_FIELDS = Set.of("epoch", "partitions", "nodes", "assignment", "replicas", "groups",
        "partition_groups", "fence_epoch", "segments", "moves", "retired");
    private static final Set<String> MOVE_FIELDS = Set.of("id", "source", "target", "phase", "phase_epoch",
        "partitions", "segments");
    private static final Set<String> RETIRED_FIELDS = Set.of("group", "partition", "segment", "switch_epoch", "batch");
    private static final Set<String> GROUP_FIELDS = Set.of("id", "members", "copying", "sealed");
    private static final Set<String> NODE_FIELDS = Set.of("id", "host", "port");

    private ClusterMapJson()
    {
    }

    /** Parses a map; throws {@link InvalidClusterMapException} naming what is wrong. */
    public static ClusterMap parse(final String json)
    {
        try
        {
            return fromTree(MAPPER.readTree(json));
        }
        catch (final JsonProcessingException ex)
        {
            throw new InvalidClusterMapException("cluster map is not valid JSON: " + ex.getOriginalMessage(), ex);
        }
    }

    /** Parses a map from UTF-8 bytes; throws {@link InvalidClusterMapException} naming what is wrong. */
    public static ClusterMap parse(final byte[] json)
    {
        try
        {
            return fromTree(MAPPER.readTree(json));
        }
        catch (final JsonProcessingException ex)
        {
            throw new InvalidClusterMapException("cluster map is not valid JSON: " + ex.getOriginalMessage(), ex);
        }
        catch (final IOException ex)
        {
            throw new InvalidClusterMapException("cluster map unreadable: " + ex.getMessage(), ex);
        }
    }

    /** Writes a map as compact JSON, assignment included. */
    public static String write(final ClusterMap map)
    {
        final ObjectNode root = MAPPER.createObjectNode();
        root.put("epoch", map.epoch());
        root.put("partitions", map.partitionCount());
        final ArrayNode nodes = root.putArray("nodes");
        for (final ClusterNode node : map.nodes())
        {
            nodes.addObject().put("id", node.id()).put("host", node.host()).put("port", node.port());
        }
        if (map.isSimple())
        {
            final ArrayNode assignment = root.putArray("assignment");
            for (final int id : map.assignment())
            {
                assignment.add(id);
            }
        }
        else
        {
            root.put("replicas", map.replicationFactor());
            if (map.fenceEpoch() != map.epoch())
            {
                root.put("fence_epoch", map.fenceEpoch());
            }
            final ArrayNode groups = root.putArray("groups");
            for (final ReplicaGroup group : map.groups())
            {
                final ObjectNode g = groups.addObject().put("id", group.id());
                final ArrayNode members = g.putArray("members");
                for (final int id : group.members())
                {
                    members.add(id);
                }
                final ArrayNode copying = g.putArray("copying");
                for (final int id : group.copying())
                {
                    copying.add(id);
                }
                g.put("sealed", group.sealed());
            }
            final ArrayNode partitionGroups = root.putArray("partition_groups");
            for (final int id : map.partitionGroups())
            {
                partitionGroups.add(id);
            }
            if (map.hasSegments())
            {
                final ArrayNode segments = root.putArray("segments");
                for (int p = 0; p < map.partitionCount(); p++)
                {
                    segments.add(KeyHash.segmentBase(map.segmentOf(p))).add(KeyHash.segmentCount(map.segmentOf(p)));
                }
            }
            writeMoves(map.moves(), root);
        }
        try
        {
            return MAPPER.writeValueAsString(root);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot write a JSON tree", ex);
        }
    }

    private static ClusterMap fromTree(final JsonNode root)
    {
        if (root == null || !root.isObject())
        {
            throw new InvalidClusterMapException("cluster map must be a JSON object");
        }
        checkFields(root, MAP_FIELDS, "cluster map");
        final long epoch = longField(root, "epoch", "cluster map");
        final int partitions = root.has("partitions") ?
            intField(root, "partitions", "cluster map") : ClusterMap.DEFAULT_PARTITIONS;
        final JsonNode nodesNode = root.get("nodes");
        if (nodesNode == null || !nodesNode.isArray())
        {
            throw new InvalidClusterMapException("cluster map: \"nodes\" must be an array of nodes");
        }
        final List<ClusterNode> nodes = new ArrayList<>();
        int i = 0;
        for (final JsonNode node : nodesNode)
        {
            final String where = "cluster map node #" + i++;
            if (!node.isObject())
            {
                throw new InvalidClusterMapException(where + " must be an object");
            }
            checkFields(node, NODE_FIELDS, where);
            final JsonNode host = node.get("host");
            if (host == null || !host.isTextual())
            {
                throw new InvalidClusterMapException(where + ": \"host\" must be a string");
            }
            nodes.add(new ClusterNode(intField(node, "id", where), host.textValue(), intField(node, "port", where)));
        }
        if (root.has("groups"))
        {
            if (root.has("assignment"))
            {
                throw new InvalidClusterMapException("cluster map: \"assignment\" and \"groups\" exclude each other");
            }
            final int replicas = intField(root, "replicas", "cluster map");
            final List<ReplicaGroup> groups = new ArrayList<>();
            final JsonNode groupsNode = root.get("groups");
            if (!groupsNode.isArray())
            {
                throw new InvalidClusterMapException("cluster map: \"groups\" must be an array of groups");
            }
            int g = 0;
            for (final JsonNode group : groupsNode)
            {
                final String where = "cluster map group #" + g++;
                if (!group.isObject())
                {
                    throw new InvalidClusterMapException(where + " must be an object");
                }
                checkFields(group, GROUP_FIELDS, where);
                final JsonNode sealed = group.get("sealed");
                if (sealed != null && !sealed.isBoolean())
                {
                    throw new InvalidClusterMapException(where + ": \"sealed\" must be true or false");
                }
                groups.add(new ReplicaGroup(intField(group, "id", where), intArray(group, "members", where),
                    group.has("copying") ? intArray(group, "copying", where) : new int[0],
                    sealed != null && sealed.booleanValue()));
            }
            final long fence = root.has("fence_epoch") ? longField(root, "fence_epoch", "cluster map") : epoch;
            return new ClusterMap(epoch, fence, partitions, nodes, replicas, groups,
                intArray(root, "partition_groups", "cluster map"), segments(root, partitions), moves(root));
        }
        if (root.has("moves") || root.has("retired"))
        {
            throw new InvalidClusterMapException("cluster map: \"moves\" and \"retired\" need \"groups\"");
        }
        if (root.has("segments"))
        {
            throw new InvalidClusterMapException("cluster map: \"segments\" needs \"groups\" (a map without " +
                "replica groups uses each node's whole index)");
        }
        if (root.has("fence_epoch"))
        {
            throw new InvalidClusterMapException("cluster map: \"fence_epoch\" needs \"groups\" (a map without " +
                "replica groups fences at every epoch)");
        }
        int[] assignment = null;
        final JsonNode assignmentNode = root.get("assignment");
        if (assignmentNode != null && !assignmentNode.isNull())
        {
            if (!assignmentNode.isArray())
            {
                throw new InvalidClusterMapException("cluster map: \"assignment\" must be an array of node ids");
            }
            assignment = new int[assignmentNode.size()];
            for (int p = 0; p < assignment.length; p++)
            {
                final JsonNode id = assignmentNode.get(p);
                if (!id.isIntegralNumber() || !id.canConvertToInt())
                {
                    throw new InvalidClusterMapException(
                        "cluster map: \"assignment\"[" + p + "] must be a node id, not " + id);
                }
                assignment[p] = id.intValue();
            }
        }
        return new ClusterMap(epoch, partitions, nodes, assignment);
    }

    private static void writeMoves(final MapMoves moves, final ObjectNode root)
    {
        if (!moves.batches().isEmpty())
        {
            final ArrayNode batches = root.putArray("moves");
            for (final MoveBatch b : moves.batches())
            {
                final ObjectNode o = batches.addObject().put("id", b.id()).put("source", b.source())
                    .put("target", b.target()).put("phase", b.phase().json()).put("phase_epoch", b.phaseEpoch());
                final ArrayNode partitions = o.putArray("partitions");
                final ArrayNode segments = o.putArray("segments");
                for (int i = 0; i < b.size(); i++)
                {
                    partitions.add(b.partition(i));
                    segments.add(KeyHash.segmentBase(b.segment(i))).add(KeyHash.segmentCount(b.segment(i)));
                }
            }
        }
        if (!moves.retired().isEmpty())
        {
            final ArrayNode retired = root.putArray("retired");
            for (final RetiredSegment r : moves.retired())
            {
                final ObjectNode o = retired.addObject().put("group", r.group()).put("partition", r.partition());
                o.putArray("segment").add(KeyHash.segmentBase(r.segment())).add(KeyHash.segmentCount(r.segment()));
                o.put("switch_epoch", r.switchEpoch()).put("batch", r.batch());
            }
        }
    }

    private static MapMoves moves(final JsonNode root)
    {
        if (!root.has("moves") && !root.has("retired"))
        {
            return MapMoves.NONE;
        }
        final List<MoveBatch> batches = new ArrayList<>();
        int i = 0;
        for (final JsonNode b : array(root, "moves", "cluster map"))
        {
            final String where = "cluster map move #" + i++;
            if (!b.isObject())
            {
                throw new InvalidClusterMapException(where + " must be an object");
            }
            checkFields(b, MOVE_FIELDS, where);
            final JsonNode phase = b.get("phase");
            if (phase == null || !phase.isTextual())
            {
                throw new InvalidClusterMapException(where + ": \"phase\" must be a string");
            }
            final int[] partitions = intArray(b, "partitions", where);
            batches.add(new MoveBatch(longField(b, "id", where), intField(b, "source", where),
                intField(b, "target", where), MovePhase.fromJson(phase.textValue()), longField(b, "phase_epoch", where),
                partitions, segmentPairs(b, "segments", partitions.length, where)));
        }
        final List<RetiredSegment> retired = new ArrayList<>();
        i = 0;
        for (final JsonNode r : array(root, "retired", "cluster map"))
        {
            final String where = "cluster map retired segment #" + i++;
            if (!r.isObject())
            {
                throw new InvalidClusterMapException(where + " must be an object");
            }
            checkFields(r, RETIRED_FIELDS, where);
            retired.add(new RetiredSegment(intField(r, "group", where), intField(r, "partition", where),
                segmentPairs(r, "segment", 1, where)[0], longField(r, "switch_epoch", where),
                longField(r, "batch", where)));
        }
        return new MapMoves(batches, retired);
    }

    /** The array {@code field} of {@code node}, or an empty one when absent. */
    private static JsonNode array(final JsonNode node, final String field, final String where)
    {
        final JsonNode array = node.get(field);
        if (array == null)
        {
            return MAPPER.createArrayNode();
        }
        if (!array.isArray())
        {
            throw new InvalidClusterMapException(where + ": \"" + field + "\" must be an array");
        }
        return array;
    }

    /** {@code count} packed segments from {@code field}, an array of base, count pairs. */
    private static long[] segmentPairs(final JsonNode node, final String field, final int count, final String where)
    {
        final JsonNode array = node.get(field);
        if (array == null || !array.isArray() || array.size() != 2L * count)
        {
            throw new InvalidClusterMapException(where + ": \"" + field + "\" must be an array of " + 2L * count +
                " integers, base and count in turn");
        }
        final long[] segments = new long[count];
        for (int i = 0; i < count; i++)
        {
            segments[i] = KeyHash.segment(segmentField(array.get(2 * i), i, "base"),
                segmentField(array.get(2 * i + 1), i, "count"));
        }
        return segments;
    }

    private static long[] segments(final JsonNode root, final int partitions)
    {
        final JsonNode array = root.get("segments");
        if (array == null)
        {
            return null;
        }
        if (!array.isArray() || array.size() != 2L * partitions)
        {
            throw new InvalidClusterMapException("cluster map: \"segments\" must be an array of " + 2L * partitions +
                " integers, base and count of each partition in turn");
        }
        final long[] segments = new long[partitions];
        for (int p = 0; p < partitions; p++)
        {
            final long base = segmentField(array.get(2 * p), p, "base");
            final long count = segmentField(array.get(2 * p + 1), p, "count");
            segments[p] = KeyHash.segment(base, count);
        }
        return segments;
    }

    private static long segmentField(final JsonNode v, final int partition, final String what)
    {
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0 ||
            v.longValue() > KeyHash.MAX_SEGMENT_FIELD)
        {
            throw new InvalidClusterMapException("cluster map: \"segments\" " + what + " of partition " + partition +
                " must be an integer in 0.." + KeyHash.MAX_SEGMENT_FIELD + ", not " + v);
        }
        return v.longValue();
    }

    private static int[] intArray(final JsonNode node, final String field, final String where)
    {
        final JsonNode array = node.get(field);
        if (array == null || !array.isArray())
        {
            throw new InvalidClusterMapException(where + ": \"" + field + "\" must be an array of integers");
        }
        final int[] values = new int[array.size()];
        for (int i = 0; i < values.length; i++)
        {
            final JsonNode v = array.get(i);
            if (!v.isIntegralNumber() || !v.canConvertToInt())
            {
                throw new InvalidClusterMapException(where + ": \"" + field + "\"[" + i + "] must be an integer, not " + v);
            }
            values[i] = v.intValue();
        }
        return values;
    }

    private static void checkFields(final JsonNode node, final Set<String> known, final String where)
    {
        for (final Iterator<String> names = node.fieldNames(); names.hasNext(); )
        {
            final String name = names.next();
            if (!known.contains(name))
            {
                throw new InvalidClusterMapException(where + ": unknown field \"" + name + "\"");
            }
        }
    }

    private static long longField(final JsonNode node, final String field, final String where)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong())
        {
            throw new InvalidClusterMapException(where + ": \"" + field + "\" must be an integer");
        }
        return value.longValue();
    }

    private static int intField(final JsonNode node, final String field, final String where)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt())
        {
            throw new InvalidClusterMapException(where + ": \"" + field + "\" must be an integer");
        }
        return value.intValue();
    }
}
