/**
 * Membership and the cluster map in ZooKeeper: nodes register ephemeral znodes, one node at a
 * time (the {@code LeaderLatch} leader) coordinates, and the map of replica groups lives in one versioned
 * znode whose every change is epoch + 1.
 *
 * <ul>
 *   <li>{@link io.rdmakv.server.cluster.ZkOptions}, {@link io.rdmakv.server.cluster.MemberInfo},
 *       {@link io.rdmakv.server.cluster.SyncPhase}, {@link io.rdmakv.server.cluster.SyncReport}: what the
 *       znodes hold, as strict JSON.</li>
 *   <li>{@link io.rdmakv.server.cluster.MapPlanner}: the pure rules that turn the current map, the live
 *       members and the copying nodes' reports into the next map (creation, failover, re-replication).</li>
 *   <li>{@link io.rdmakv.server.cluster.ZkMembership}: the Curator side: register, elect, coordinate (run the
 *       planner and write the map with versioned writes), watch the map and tell a
 *       {@link io.rdmakv.server.cluster.MembershipListener}.</li>
 * </ul>
 *
 * Layout under {@code /rdmakv/<cluster-name>}: {@code config}, {@code members/<id>}, {@code leader},
 * {@code map}, {@code sync/<id>}.
 */
package io.rdmakv.server.cluster;
