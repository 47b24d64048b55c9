package io.rdmakv.server;

import io.rdmakv.server.config.ConfigFile;
import io.rdmakv.server.config.ConfigFileException;
import io.rdmakv.server.config.LayeredDefaults;
import io.rdmakv.server.config.LeaseOptions;
import io.rdmakv.server.config.MetricsOptions;
import io.rdmakv.server.config.NodeOptions;
import io.rdmakv.server.config.ScrubOptions;
import io.rdmakv.server.config.SecurityOptions;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.config.SpaceOptions;
import io.rdmakv.server.config.TransportOptions;
import io.rdmakv.server.config.ZooKeeperOptions;
import io.rdmakv.server.metrics.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code kvserver}: runs one rdmakv node until SIGTERM or SIGINT.
 *
 * <p>Parsing is separate from running: the command turns its options into a {@link ServerConfig} and
 * hands it to the {@link StartAction} it was built with, so tests parse without starting a node. Each
 * option's value comes from the command line, else its {@code RDMAKV_*} environment variable, else the
 * config file ({@code --config}), else the built-in default.
 */
@Command(
    name = "kvserver",
    mixinStandardHelpOptions = true,
    versionProvider = KvServerCommand.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = "Runs one rdmakv node: registers a region (hash index + key-value blocks) that clients read and " +
        "write with one-sided RDMA, and serves the control plane (space grants, frees, statistics).%n",
    footer = {"%nEvery option can also be set by an environment variable, RDMAKV_ plus the option name in upper case " +
        "with '_' for '-' (RDMAKV_MEMORY, RDMAKV_NODE_ID, RDMAKV_AUTH_TOKEN, ...), or by a key of the config file " +
        "named like the option (memory: 4g). A flag beats the environment, which beats the file, which beats the " +
        "default.",
        "%nExit codes: 0 stopped by SIGTERM/SIGINT, 1 could not start, 2 bad usage or configuration."})
public final class KvServerCommand implements Callable<Integer>
{
    /** The auth token may come from here instead of the command line (which other users can see). */
    public static final String TOKEN_ENV = "RDMAKV_AUTH_TOKEN";
    /** The config file when {@code --config} is not given. */
    public static final String CONFIG_ENV = "RDMAKV_CONFIG";
    public static final int EXIT_START_FAILED = 1;
    public static final int EXIT_USAGE = 2;
    /** The node ran but hit an error it cannot go on with (a listener that cannot accept); restart it. */
    public static final int EXIT_FATAL = 3;

    /** What runs a node once its configuration is parsed; returns the exit code. */
    @FunctionalInterface
    public interface StartAction
    {
        int start(ServerConfig config) throws Exception;
    }

    @Option(names = "--config", paramLabel = "FILE",
        description = "YAML or JSON file whose keys are the long option names (listen, memory, node-id, ...). " +
            "Also $" + CONFIG_ENV + ". Default: none.")
    private Path configFile;

    @Mixin
    private NodeOptions node;

    @Mixin
    private SpaceOptions space;

    @Mixin
    private LeaseOptions lease;

    @Mixin
    private TransportOptions transport;

    @Mixin
    private MetricsOptions metrics;

    @Mixin
    private SecurityOptions security;

    @Mixin
    private ZooKeeperOptions zookeeper;

    @Mixin
    private ScrubOptions scrub;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private final StartAction startAction;
    private final Map<String, String> environment;

    KvServerCommand(final StartAction startAction)
    {
        this(startAction, Map.of());
    }

    KvServerCommand(final StartAction startAction, final Map<String, String> environment)
    {
        this.startAction = startAction;
        this.environment = Map.copyOf(environment);
    }

    /** The configuration the parsed options say; throws {@link CommandLine.ParameterException} on bad values. */
    ServerConfig config()
    {
        final ServerConfig.Builder builder = ServerConfig.builder();
        node.configure(builder, spec);
        space.configure(builder, spec);
        lease.configure(builder, spec);
        scrub.configure(builder, spec);
        transport.configure(builder, spec);
        metrics.configure(builder, spec);
        security.configure(builder, spec);
        zookeeper.configure(builder, spec, environment);
        final ServerConfig config = builder.build();
        if (config.clusterFile() != null && config.zookeeper() != null)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cluster FILE and --zookeeper exclude each " +
                "other: a node learns its map from a static file or from ZooKeeper, not both");
        }
        return config;
    }

    @Override
    public Integer call() throws Exception
    {
        return startAction.start(config());
    }

    /**
     * Parses {@code args} with defaults from {@code environment} and the config file, and runs
     * {@code startAction} with the result. Usage and configuration errors print one line to {@code err}
     * and return {@value #EXIT_USAGE}; help and version go to {@code out}.
     */
    public static int execute(final PrintWriter out, final PrintWriter err, final Map<String, String> environment,
        final StartAction startAction, final String... args)
    {
        final CommandLine cmd = new CommandLine(new KvServerCommand(startAction, environment));
        cmd.setOut(out);
        cmd.setErr(err);
        final Set<String> given = longOptionsIn(args);
        final boolean helpOnly = given.contains("--help") || given.contains("--version") ||
            List.of(args).contains("-h") || List.of(args).contains("-V");
        LayeredDefaults defaults = null;
        if (!helpOnly)
        {
            try
            {
                defaults = new LayeredDefaults(given, environment, configFile(cmd, args, environment));
            }
            catch (final ConfigFileException e)
            {
                return usageError(err, e.getMessage());
            }
            cmd.setDefaultValueProvider(defaults);
        }
        final LayeredDefaults sources = defaults;
        cmd.setParameterExceptionHandler((e, a) -> badUsage(e, sources));
        final int code = cmd.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    public static void main(final String[] args)
    {
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        System.exit(execute(out, err, System.getenv(), config -> NodeRunner.run(config, out, err), args));
    }

    /** The config file named by {@code --config FILE}, {@code --config=FILE} or the environment, read and checked. */
    private static ConfigFile configFile(final CommandLine cmd, final String[] args,
        final Map<String, String> environment)
    {
        String path = environment.get(CONFIG_ENV);
        for (int i = 0; i < args.length; i++)
        {
            if ("--".equals(args[i]))
            {
                break;
            }
            if ("--config".equals(args[i]) && i + 1 < args.length)
            {
                path = args[i + 1];
            }
            else if (args[i].startsWith("--config="))
            {
                path = args[i].substring("--config=".length());
            }
        }
        if (path == null || path.isBlank())
        {
            return null;
        }
        return ConfigFile.load(Path.of(path), fileKeys(cmd));
    }

    /** The keys a config file may set: every long option name except config, help and version. */
    static List<String> fileKeys(final CommandLine cmd)
    {
        final List<String> keys = new ArrayList<>();
        for (final CommandLine.Model.OptionSpec option : cmd.getCommandSpec().options())
        {
            final String name = option.longestName();
            if (!option.usageHelp() && !option.versionHelp() && !"--config".equals(name))
            {
                keys.add(name.substring(2));
            }
        }
        return keys;
    }

    /** The long options ({@code --memory}) among {@code args}, with or without {@code =value}. */
    private static Set<String> longOptionsIn(final String[] args)
    {
        final Set<String> names = new HashSet<>();
        for (final String arg : args)
        {
            if ("--".equals(arg))
            {
                break;
            }
            if (arg.startsWith("--"))
            {
                final int eq = arg.indexOf('=');
                names.add(eq < 0 ? arg : arg.substring(0, eq));
            }
        }
        return names;
    }

    /** One line for a bad flag or value, saying where a value from the environment or the file came from. */
    private static int badUsage(final CommandLine.ParameterException e, final LayeredDefaults sources)
    {
        String source = null;
        if (sources != null && e.getArgSpec() instanceof CommandLine.Model.OptionSpec option)
        {
            source = sources.sourceOf(option.longestName());
        }
        final PrintWriter err = e.getCommandLine().getErr();
        return usageError(err, (source == null ? "" : source + ": ") + e.getMessage());
    }

    private static int usageError(final PrintWriter err, final String message)
    {
        err.println("kvserver: " + message);
        err.println("Try 'kvserver --help' for the options.");
        err.flush();
        return EXIT_USAGE;
    }

    /** The version from the build, the region layout and the protocol. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[] {"kvserver " + BuildInfo.VERSION + " (layout version " + BuildInfo.LAYOUT_VERSION +
                ", protocol " + BuildInfo.PROTOCOL_VERSION + ")"};
        }
    }
}
