package io.rdmakv.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.cluster.ClusterMap;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the {@code map} znode holds: {@code {"map": <ClusterMap JSON>, "incarnations": {"1": 8127..., ...}}}.
 * The incarnations are those of the nodes placed in a group (members and copying) when they were placed: a
 * live node whose incarnation differs restarted empty and counts as gone.
 */
public record StoredMap(ClusterMap map, Map<Integer, Long> incarnations)
{
    private static final Set<String> FIELDS = Set.of("map", "incarnations");

    public StoredMap
    {
        if (map == null)
        {
            throw new IllegalArgumentException("stored map has no map");
        }
        incarnations = Map.copyOf(incarnations);
    }

    public byte[] toJson()
    {
        final ObjectNode root = ZkJson.object();
        try
        {
            root.set("map", ZkJson.MAPPER.readTree(map.toJson()));
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalStateException("cannot re-read the map's own JSON", e);
        }
        final ObjectNode inc = root.putObject("incarnations");
        for (final Map.Entry<Integer, Long> e : new TreeMap<>(incarnations).entrySet())
        {
            inc.put(Integer.toString(e.getKey()), e.getValue());
        }
        return ZkJson.bytes(root);
    }

    /** Parses the map znode; throws IllegalArgumentException naming what is wrong. */
    public static StoredMap fromJson(final byte[] json)
    {
        final String what = "map znode";
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        final ClusterMap map;
        try
        {
            map = ClusterMap.fromJson(ZkJson.MAPPER.writeValueAsString(root.get("map")));
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalArgumentException(what + ": cannot write the map back", e);
        }
        final JsonNode inc = root.get("incarnations");
        if (!inc.isObject())
        {
            throw new IllegalArgumentException(what + ": \"incarnations\" must be an object of node id -> incarnation");
        }
        final Map<Integer, Long> incarnations = new TreeMap<>();
        for (final Iterator<Map.Entry<String, JsonNode>> it = inc.fields(); it.hasNext(); )
        {
            final Map.Entry<String, JsonNode> e = it.next();
            final int id;
            try
            {
                id = Integer.parseInt(e.getKey());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(what + ": incarnation key \"" + e.getKey() + "\" is not a node id", ex);
            }
            incarnations.put(id, ZkJson.longField(inc, e.getKey(), what + " incarnations"));
        }
        return new StoredMap(map, incarnations);
    }
}
