package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.cluster.ClusterMap;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the {@code map} znode holds: {@code {"map": <ClusterMap JSON>, "incarnations": {"1": 8127..., ...},
 * "previous": {"map": ..., "incarnations": ...}}}. The incarnations are those of the nodes placed in a group
 * (members and copying) when they were placed: a live node whose incarnation differs restarted empty and counts
 * as gone. {@code previous} is the map this one replaced (without its own previous; absent in the first map),
 * so that a reader that missed maps can still check the last change ({@link MapCheck}).
 */
public record StoredMap(ClusterMap map, Map<Integer, Long> incarnations, StoredMap previous)
{
    private static final Set<String> FIELDS = Set.of("map", "incarnations");
    private static final Set<String> OPTIONAL = Set.of("previous");

    public StoredMap
    {
        if (map == null)
        {
            throw new IllegalArgumentException("stored map has no map");
        }
        incarnations = Map.copyOf(incarnations);
        if (previous != null && previous.previous() != null)
        {
            previous = previous.withoutPrevious();
        }
    }

    /** A map with no record of the one it replaced. */
    public StoredMap(final ClusterMap map, final Map<Integer, Long> incarnations)
    {
        this(map, incarnations, null);
    }

    /** This map and its incarnations alone. */
    public StoredMap withoutPrevious()
    {
        return previous == null ? this : new StoredMap(map, incarnations, null);
    }

    /** This map as the successor of {@code replaced}. */
    public StoredMap after(final StoredMap replaced)
    {
        return new StoredMap(map, incarnations, replaced == null ? null : replaced.withoutPrevious());
    }

    /** The same map and record under another epoch (the coordinator's restore of a refused map). */
    public StoredMap withEpoch(final long epoch)
    {
        final ClusterMap m = new ClusterMap(epoch, epoch, map.partitionCount(), map.nodes(), map.replicationFactor(),
            map.groups(), map.partitionGroups(), map.segments(), map.moves());
        return new StoredMap(m, incarnations, previous);
    }

    public byte[] toJson()
    {
        final ObjectNode root = tree();
        if (previous != null)
        {
            root.set("previous", previous.tree());
        }
        return ZkJson.bytes(root);
    }

    private ObjectNode tree()
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
        return root;
    }

    /** Parses the map znode; throws IllegalArgumentException naming what is wrong. */
    public static StoredMap fromJson(final byte[] json)
    {
        final String what = "map znode";
        final JsonNode root = ZkJson.object(json, what, FIELDS, OPTIONAL);
        final StoredMap stored = fromTree(root, what);
        final JsonNode previous = root.get("previous");
        if (previous == null)
        {
            return stored;
        }
        try
        {
            final String inner = what + " previous";
            return stored.after(fromTree(ZkJson.object(ZkJson.MAPPER.writeValueAsBytes(previous), inner, FIELDS,
                Set.of()), inner));
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalArgumentException(what + ": cannot write \"previous\" back", e);
        }
    }

    private static StoredMap fromTree(final JsonNode root, final String what)
    {
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
