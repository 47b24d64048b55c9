package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Set;

/**
 * The operator's drain ({@code kvctl drain NODE [--cancel]}, docs/growth.md §12 "Drain"), as REBALANCE carries it:
 * {@code {"drain": <node id>}} to start draining a node (the node asked creates {@code drain/<id>}), with
 * {@code "cancel": true} to stop (it deletes it). A REBALANCE whose JSON has a {@code drain} field is a drain; any
 * other is a move request ({@link MoveRequest}).
 *
 * @param node   the node to drain, at least 0
 * @param cancel whether to stop draining it
 */
public record DrainRequest(int node, boolean cancel)
{
    private static final String WHAT = "drain request";

    public DrainRequest
    {
        if (node < 0)
        {
            throw new IllegalArgumentException(WHAT + ": node " + node + " is negative");
        }
    }

    /** Whether {@code json} is a drain (an object with a {@code drain} field) rather than a move request. */
    public static boolean isDrain(final byte[] json)
    {
        return ZkJson.hasField(json, "drain");
    }

    /** Parses a drain; IllegalArgumentException saying what is wrong. */
    public static DrainRequest fromJson(final byte[] json)
    {
        final JsonNode root = ZkJson.object(json, WHAT, Set.of("drain"), Set.of("cancel"));
        final JsonNode cancel = root.get("cancel");
        if (cancel != null && !cancel.isBoolean())
        {
            throw new IllegalArgumentException(WHAT + ": \"cancel\" must be true or false");
        }
        return new DrainRequest(ZkJson.intField(root, "drain", WHAT), cancel != null && cancel.booleanValue());
    }

    public byte[] toJson()
    {
        final ObjectNode root = ZkJson.object().put("drain", node);
        if (cancel)
        {
            root.put("cancel", true);
        }
        return ZkJson.bytes(root);
    }
}
