package io.rdmakv.server.config;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** The Prometheus endpoint: /metrics, /ready and /live over HTTP. */
public final class MetricsOptions
{
    @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "0",
        description = "Port of the HTTP endpoint serving /metrics (Prometheus), /ready and /live; 0 turns it " +
            "off. The sample configs use " + ServerConfig.RECOMMENDED_METRICS_PORT + ". Default: ${DEFAULT-VALUE}.")
    private int metricsPort;

    @Option(names = "--metrics-host", paramLabel = "HOST", defaultValue = ServerConfig.DEFAULT_METRICS_HOST,
        description = "Address the metrics endpoint listens on. It has no authentication and tells the region's " +
            "size and the session count: keep it on loopback, or on an address only Prometheus reaches " +
            "(0.0.0.0 in a pod with a network policy). Default: ${DEFAULT-VALUE}.")
    private String metricsHost;

    /** Sets the endpoint; refuses a port outside 0..65535. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (metricsPort < 0 || metricsPort > 65535)
        {
            throw Invalid.value(spec, "--metrics-port", metricsPort, "a port in 1..65535, or 0 for off");
        }
        builder.metrics(metricsHost, metricsPort);
    }
}
