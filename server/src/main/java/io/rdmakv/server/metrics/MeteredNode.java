package io.rdmakv.server.metrics;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.bootstrap.AuthThrottle;
import io.rdmakv.server.bootstrap.ConnectionLimit;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.verbs.DeviceAttributes;

/**
 * The node as {@link ServerMetrics} reads it: what it is, its state and its space. {@code
 * io.rdmakv.server.KvServer} implements it (so that this package does not depend on the one that assembles the
 * node).
 */
public interface MeteredNode
{
    ServerConfig config();

    /** The bootstrap listener's port. */
    int port();

    /** The map served in HELLO_OK now; null while a node of a ZooKeeper cluster is in no map. */
    ClusterMap clusterMap();

    /** The provider's name: {@code tcp} or {@code ibverbs}. */
    String transport();

    /** The name of the opened device. */
    String deviceName();

    /** What the opened device can do: atomics, port state, link layer. */
    DeviceAttributes deviceAttributes();

    int sessionCount();

    /**
     * The lowest epoch the connected sessions' heartbeats report as one an operation of theirs may still run under;
     * the node's applied epoch while none has reported.
     */
    long oldestClientEpoch();

    /** The limit on bootstrap connections held at once, and its count of connections refused. */
    ConnectionLimit connectionLimit();

    /** Failed and throttled authentications. */
    AuthThrottle authThrottle();

    ServerCounters counters();

    RegionGeometry geometry();

    /** Free bytes of the data area. */
    long freeBytes();

    /** Bytes of the data area waiting out the grace period (or quarantine). */
    long graceBytes();

    /** Used index slots, counted by walking the whole index (callers cache it). */
    long usedSlots();

    /**
     * The used slots of each segment of a partition this node's group owns, on its primary, from the census's last
     * pass (at most about a second old; {@code SegmentLoads.NONE} elsewhere): docs/growth.md §11.
     */
    io.rdmakv.server.space.SegmentLoads segmentLoads();
}
