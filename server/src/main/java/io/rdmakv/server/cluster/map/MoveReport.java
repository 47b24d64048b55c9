package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A node's progress with the move batches of one map: {@code moves/<nodeId>} holds
 * {@code {"epoch": 9, "batches": {"7000": "bulk", "6000": "reclaimed"}}} (the node id is the znode's name). Like a
 * {@link SyncReport}, it counts only for the map of its epoch: a node writes its whole state again for each map it
 * applies.
 */
public record MoveReport(int nodeId, long epoch, Map<Long, MoveState> batches)
{
    private static final Set<String> FIELDS = Set.of("epoch", "batches");

    public MoveReport
    {
        if (nodeId < 0 || epoch < 0)
        {
            throw new IllegalArgumentException("move report of node " + nodeId + " for epoch " + epoch + ": negative");
        }
        batches = Map.copyOf(batches);
        for (final Map.Entry<Long, MoveState> e : batches.entrySet())
        {
            if (e.getKey() < 0 || e.getValue() == null)
            {
                throw new IllegalArgumentException("move report of node " + nodeId + ": batch " + e.getKey() +
                    " is negative or has no state");
            }
        }
    }

    /** What the node says of batch {@code batch} in the map of {@code epoch}; null when nothing (or another epoch). */
    public MoveState state(final long batch, final long epoch)
    {
        return this.epoch == epoch ? batches.get(batch) : null;
    }

    public byte[] toJson()
    {
        final ObjectNode root = ZkJson.object().put("epoch", epoch);
        final ObjectNode b = root.putObject("batches");
        for (final Map.Entry<Long, MoveState> e : new TreeMap<>(batches).entrySet())
        {
            b.put(Long.toString(e.getKey()), e.getValue().json());
        }
        return ZkJson.bytes(root);
    }

    /** Parses the report in {@code moves/<nodeId>}; throws IllegalArgumentException naming what is wrong. */
    public static MoveReport fromJson(final int nodeId, final byte[] json)
    {
        final String what = "move report of node " + nodeId;
        final JsonNode root = ZkJson.object(json, what, FIELDS, Set.of());
        final JsonNode b = root.get("batches");
        if (!b.isObject())
        {
            throw new IllegalArgumentException(what + ": \"batches\" must be an object of batch id -> state");
        }
        final Map<Long, MoveState> batches = new TreeMap<>();
        for (final Iterator<Map.Entry<String, JsonNode>> it = b.fields(); it.hasNext(); )
        {
            final Map.Entry<String, JsonNode> e = it.next();
            final long id;
            try
            {
                id = Long.parseLong(e.getKey());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(what + ": batch \"" + e.getKey() + "\" is not a batch id", ex);
            }
            batches.put(id, MoveState.fromJson(ZkJson.textField(b, e.getKey(), what)));
        }
        return new MoveReport(nodeId, ZkJson.longField(root, "epoch", what), batches);
    }
}
