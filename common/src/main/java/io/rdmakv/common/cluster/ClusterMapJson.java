package io.rdmakv.common.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

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
 * Unknown fields, repeated fields and trailing content are rejected (a misspelt field should not be
 * silently ignored).
 */
public final class ClusterMapJson
{
    private static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();
    private static final Set<String> MAP_FIELDS = Set.of("epoch", "partitions", "nodes", "assignment");
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
        final ArrayNode assignment = root.putArray("assignment");
        for (final int id : map.assignment())
        {
            assignment.add(id);
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
