package io.rdmakv.bench;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of every benchmark that drives a running cluster through {@link io.rdmakv.client.KvClient}:
 * the seed nodes and the transport. Each command mixes it in with its own defaults; a command made with
 * {@link #hostsRequired} has no default for {@code --hosts} and refuses to run without it.
 */
final class ClusterOptions
{
    /** What Picocli says when a required option is missing, for {@code --hosts}. */
    static final String MISSING_HOSTS = "Missing required option: '--hosts=H:P[,...]'";

    @Option(names = "--hosts", paramLabel = "H:P[,...]", description = "Seed nodes (required where no default is shown).")
    String hosts;

    @Option(names = "--transport", paramLabel = "T", description = "auto, tcp or ibverbs.")
    String transport;

    private ClusterOptions(final String hosts, final String transport)
    {
        this.hosts = hosts;
        this.transport = transport;
    }

    /** {@code --hosts} defaulting to {@code hosts}, {@code --transport} to {@code transport}. */
    static ClusterOptions defaults(final String hosts, final String transport)
    {
        return new ClusterOptions(hosts, transport);
    }

    /** {@code --hosts} required, {@code --transport} defaulting to {@code transport}. */
    static ClusterOptions hostsRequired(final String transport)
    {
        return new ClusterOptions(null, transport);
    }

    /** Throws Picocli's usage error when {@code --hosts} was needed and not given. */
    void check(final CommandLine cli)
    {
        if (hosts == null)
        {
            throw new CommandLine.ParameterException(cli, MISSING_HOSTS);
        }
    }
}
