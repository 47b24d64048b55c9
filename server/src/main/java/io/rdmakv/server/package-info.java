/**
 * The node's assembly, and nothing else: {@link io.rdmakv.server.KvServerCommand} (the {@code kvserver}
 * command line) builds a {@link io.rdmakv.server.config.ServerConfig}, {@code NodeRunner} runs a node with its
 * metrics endpoint and, with {@code --zookeeper}, its membership, and {@link io.rdmakv.server.KvServer} wires
 * the region, the transport, the bootstrap listener ({@code SessionOpener} opens each session) and the control
 * agent together. The packages below never depend on this one: where they need the node, they name what they
 * need of it ({@link io.rdmakv.server.cluster.MemberNode}, {@link io.rdmakv.server.metrics.MeteredNode},
 * {@link io.rdmakv.server.cluster.MapApplier}), and the server's packages have no cycles (a test in the
 * server's tests, {@code PackageCyclesTest}, fails the build on one).
 */
package io.rdmakv.server;
