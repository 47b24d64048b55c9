package io.rdmakv.bench;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of every benchmark that drives a running cluster through {@link io.rdmakv.client.KvClient}:
 * the seed nodes and the transport. Each command mixes it in with its own defaults: {@code --hosts} is required
 * unless the command gives it a default ({@link #defaults}), which {@link BenchArgs} supplies through Picocli's
 * default value provider, so that the usage shows the option as optional and with that default.
 */
final class ClusterOptions implements CommandLine.IDefaultValueProvider
{
    @Option(names = "--hosts", required = true, paramLabel = "H:P[,...]", description = "Seed nodes.")
    String hosts;

    @Option(names = "--transport", paramLabel = "T", description = "auto, tcp or ibverbs.")
    String transport;

    /** {@code --hosts}'s default, or null when it is required. */
    private final String defaultHosts;

    private ClusterOptions(final String defaultHosts, final String transport)
    {
        this.defaultHosts = defaultHosts;
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

    /** The default of {@code --hosts}; null (none) for every other option. */
    @Override
    public String defaultValue(final CommandLine.Model.ArgSpec argument)
    {
        return argument instanceof CommandLine.Model.OptionSpec option && "--hosts".equals(option.longestName()) ?
            defaultHosts : null;
    }
}
