package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;

import java.util.Set;

/**
 * The {@code config} znode, {@code {"replicas": R, "partitions": P}}: written once by the first node, then
 * followed by every node (a node started with another {@code --replicas} warns and follows it).
 */
public record ClusterSettings(int replicas, int partitions)
{
    private static final Set<String> FIELDS = Set.of("replicas", "partitions");

    public ClusterSettings
    {
        if (replicas < 1 || replicas > ReplicaGroup.MAX_REPLICAS)
        {
            throw new IllegalArgumentException("cluster config: replicas " + replicas + " outside 1.." +
                ReplicaGroup.MAX_REPLICAS);
        }
        if (partitions < 1 || partitions > ClusterMap.MAX_PARTITIONS)
        {
            throw new IllegalArgumentException("cluster config: partitions " + partitions + " outside 1.." +
                ClusterMap.MAX_PARTITIONS);
        }
    }

    public byte[] toJson()
    {
        return ZkJson.bytes(ZkJson.object().put("replicas", replicas).put("partitions", partitions));
    }

    public static ClusterSettings fromJson(final byte[] json)
    {
        final String what = "cluster config";
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        return new ClusterSettings(ZkJson.intField(root, "replicas", what), ZkJson.intField(root, "partitions", what));
    }
}
