/**
 * The ZooKeeper client of a node: how it connects ({@link io.rdmakv.server.cluster.zk.ZkOptions},
 * {@link io.rdmakv.server.cluster.zk.ZkClients}), TLS ({@link io.rdmakv.server.cluster.zk.ZkTls}), the digest
 * credential and the ACL of every znode it creates ({@link io.rdmakv.server.cluster.zk.ZkCredentials},
 * {@code ZkAcls}), locking down a cluster found open ({@link io.rdmakv.server.cluster.zk.ZkLockdown}), and the
 * znodes' paths ({@link io.rdmakv.server.cluster.zk.ZkPaths}).
 */
package io.rdmakv.server.cluster.zk;
