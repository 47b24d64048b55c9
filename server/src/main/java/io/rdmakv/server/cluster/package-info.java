/**
 * Membership and the cluster map in ZooKeeper: nodes register ephemeral znodes, one node at a
 * time (the {@code LeaderLatch} leader) coordinates, and the map of replica groups lives in one versioned
 * znode whose every change is epoch + 1.
 *
 * <ul>
 *   <li>{@link io.rdmakv.server.cluster.ZkMembership}: the Curator side: register, elect, coordinate (the
 *       {@link io.rdmakv.server.cluster.Coordinator} runs the planner and writes the map with versioned writes),
 *       watch the map and tell a {@link io.rdmakv.server.cluster.MembershipListener}.</li>
 *   <li>{@link io.rdmakv.server.cluster.NodeRole}, {@link io.rdmakv.server.cluster.NodeCurrency},
 *       {@link io.rdmakv.server.cluster.ZooKeeperNode}: the node's side: the maps it applies, whether it is
 *       current, and the lot started and closed together.</li>
 *   <li>{@link io.rdmakv.server.cluster.map}: what the znodes hold (strict JSON) and the pure rules over the
 *       map (planner, checks); {@link io.rdmakv.server.cluster.zk}: the ZooKeeper client, its options, TLS,
 *       credentials and ACLs, and the znode paths.</li>
 * </ul>
 *
 * Layout under {@code /rdmakv/<cluster-name>}: {@code config}, {@code members/<id>}, {@code leader},
 * {@code map}, {@code sync/<id>}.
 */
package io.rdmakv.server.cluster;
