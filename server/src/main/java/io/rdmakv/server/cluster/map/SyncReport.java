package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Set;

/**
 * A copying node's progress: {@code sync/<nodeId>} holds {@code {"group": 0, "epoch": 7, "phase": "bulk"}}
 * (the node id is the znode's name). A report only counts for the map of its epoch: a report of an older
 * map says nothing about the current one.
 */
public record SyncReport(int nodeId, int group, long epoch, SyncPhase phase)
{
    private static final Set<String> FIELDS = Set.of("group", "epoch", "phase");

    public SyncReport
    {
        if (nodeId < 0 || group < 0 || epoch < 0)
        {
            throw new IllegalArgumentException("sync report of node " + nodeId + " for group " + group + " epoch " +
                epoch + ": negative");
        }
        if (phase == null)
        {
            throw new IllegalArgumentException("sync report of node " + nodeId + " has no phase");
        }
    }

    public byte[] toJson()
    {
        return ZkJson.bytes(ZkJson.object().put("group", group).put("epoch", epoch).put("phase", phase.json()));
    }

    /** Parses the report in {@code sync/<nodeId>}; throws IllegalArgumentException naming what is wrong. */
    public static SyncReport fromJson(final int nodeId, final byte[] json)
    {
        final String what = "sync report of node " + nodeId;
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        return new SyncReport(nodeId, ZkJson.intField(root, "group", what), ZkJson.longField(root, "epoch", what),
            SyncPhase.fromJson(ZkJson.textField(root, "phase", what)));
    }
}
