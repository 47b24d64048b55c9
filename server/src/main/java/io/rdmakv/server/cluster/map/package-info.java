/**
 * The cluster map as ZooKeeper holds it, and the pure rules over it (no ZooKeeper here, so every rule is
 * unit-tested).
 *
 * <ul>
 *   <li>{@link io.rdmakv.server.cluster.map.ClusterSettings}, {@link io.rdmakv.server.cluster.map.MemberInfo},
 *       {@link io.rdmakv.server.cluster.map.StoredMap}, {@link io.rdmakv.server.cluster.map.SyncReport} (with
 *       its {@link io.rdmakv.server.cluster.map.SyncPhase}): what the znodes hold, as strict JSON
 *       ({@code ZkJson}).</li>
 *   <li>{@link io.rdmakv.server.cluster.map.MapPlanner}: the rules that turn the current map, the live members
 *       and the copying nodes' reports into the next map (creation, failover, re-replication).</li>
 *   <li>{@link io.rdmakv.server.cluster.map.MapCheck}: the rules every map read from ZooKeeper must keep; a
 *       map that breaks one is refused for a {@link io.rdmakv.server.cluster.map.MapRefusal}.</li>
 * </ul>
 */
package io.rdmakv.server.cluster.map;
