package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmakv.common.cluster.ClusterNode;

import java.util.Set;

/**
 * What a live node says about itself in {@code members/<id>}:
 * {@code {"id": 1, "host": "10.0.0.1", "port": 7400, "geometry": "1073741824:4096", "incarnation": 8127...}}.
 *
 * @param id the node id.
 * @param host the host clients reach it at.
 * @param port its bootstrap port.
 * @param geometry {@code <memoryBytes>:<chunkSize>}: nodes of one group must have equal geometry so that a slot
 *     word and a block offset mean the same on each.
 * @param incarnation a random number chosen at process start: a node that comes back with another one
 *     restarted empty, and counts as a new node.
 */
public record MemberInfo(int id, String host, int port, String geometry, long incarnation)
{
    private static final Set<String> FIELDS = Set.of("id", "host", "port", "geometry", "incarnation");

    public MemberInfo
    {
        // the same rules as a map's node, so that every member can be listed in a map
        new ClusterNode(id, host, port);
        if (geometry == null || !geometry.matches("[0-9]+:[0-9]+"))
        {
            throw new IllegalArgumentException("member " + id + " geometry \"" + geometry +
                "\" is not <memoryBytes>:<chunkSize>");
        }
    }

    /** The geometry string of a region of {@code memoryBytes} in chunks of {@code chunkSize}. */
    public static String geometry(final long memoryBytes, final int chunkSize)
    {
        return memoryBytes + ":" + chunkSize;
    }

    /** The node as a map lists it. */
    public ClusterNode node()
    {
        return new ClusterNode(id, host, port);
    }

    public byte[] toJson()
    {
        return ZkJson.bytes(ZkJson.object().put("id", id).put("host", host).put("port", port)
            .put("geometry", geometry).put("incarnation", incarnation));
    }

    /** Parses a member znode; throws IllegalArgumentException naming what is wrong. */
    public static MemberInfo fromJson(final byte[] json)
    {
        final String what = "member";
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        return new MemberInfo(ZkJson.intField(root, "id", what), ZkJson.textField(root, "host", what),
            ZkJson.intField(root, "port", what), ZkJson.textField(root, "geometry", what),
            ZkJson.longField(root, "incarnation", what));
    }
}
