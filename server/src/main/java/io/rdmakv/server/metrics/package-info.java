/**
 * The node's Prometheus metrics and its HTTP endpoint ({@code /metrics}, {@code /ready}, {@code /live}).
 * Every metric is a callback read at scrape time from counters the control agent keeps as plain
 * volatile fields; nothing here runs on the control agent's thread, and the data path (one-sided RDMA)
 * never reaches the server's CPU at all. The index load needs a walk over the whole index, so it is
 * cached ({@link io.rdmakv.server.metrics.IndexLoad}). The metrics read the node through
 * {@link io.rdmakv.server.metrics.MeteredNode}; {@link io.rdmakv.server.metrics.BuildInfo} is what the build is
 * ({@code rdmakv_build_info}, {@code kvserver --version}).
 */
package io.rdmakv.server.metrics;
