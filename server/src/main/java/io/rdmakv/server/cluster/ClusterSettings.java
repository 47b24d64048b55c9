package io.rdmakv.server.cluster;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Set;

/**
 * The {@code config} znode, {@code {"replicas": R, "partitions": P}}: written once by the first node, then
 * followed by every node (a node started with another {@code --replicas} warns and follows it).
 */
record ClusterSettings(int replicas, int partitions)
{
    private static final Set<String> FIELDS = Set.of("replicas", "partitions");

    ClusterSettings
    {
        // the same rules as the options the first node wrote them from
        new ZkOptions("-", "-", replicas, partitions, ZkOptions.DEFAULT_SESSION_TIMEOUT_MS, 0);
    }

    byte[] toJson()
    {
        return ZkJson.bytes(ZkJson.object().put("replicas", replicas).put("partitions", partitions));
    }

    static ClusterSettings fromJson(final byte[] json)
    {
        final String what = "cluster config";
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        return new ClusterSettings(ZkJson.intField(root, "replicas", what), ZkJson.intField(root, "partitions", what));
    }
}
