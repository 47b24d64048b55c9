/**
 * The client's Prometheus metrics, registered in a registry the application passes in
 * ({@link io.rdmakv.client.KvClientConfig#withMetrics}). The data path never touches Prometheus: each
 * thread counts its operations, latencies and round trips in its own {@link
 * io.rdmakv.client.metrics.OperationRecorder} (plain long arrays, fixed histogram buckets, no allocation,
 * no atomics), and the registry sums the recorders when it is scraped.
 */
package io.rdmakv.client.metrics;
