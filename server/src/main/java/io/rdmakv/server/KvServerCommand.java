package io.rdmakv.server;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.verbs.Providers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code kvserver}: runs one rdmakv node until SIGTERM or SIGINT. */
@Command(
    name = "kvserver",
    mixinStandardHelpOptions = true,
    versionProvider = KvServerCommand.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = "Runs one rdmakv node: registers a region (hash index + key-value blocks) that clients read and " +
        "write with one-sided RDMA, and serves the control plane (space grants, frees, statistics).%n")
public final class KvServerCommand implements Callable<Integer>
{
    /** The auth token may come from here instead of the command line (which other users can see). */
    public static final String TOKEN_ENV = "RDMAKV_AUTH_TOKEN";

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:" + ServerConfig.DEFAULT_PORT,
        description = "Address of the bootstrap listener clients connect to. Default: ${DEFAULT-VALUE}.")
    String listen;

    @Option(names = "--memory", paramLabel = "SIZE", defaultValue = "1g", converter = SizeConverter.class,
        description = "Region size: index plus data area, e.g. 512m, 4g. Default: ${DEFAULT-VALUE}.")
    long memory;

    @Option(names = "--transport", paramLabel = "auto|tcp|ibverbs", defaultValue = "auto",
        description = "RDMA transport: ibverbs (a real RDMA device), tcp (software, any machine) or auto " +
            "(ibverbs when a usable device exists). Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(names = "--node-id", paramLabel = "ID", defaultValue = "0",
        description = "This node's id in the cluster map. Default: ${DEFAULT-VALUE}.")
    int nodeId;

    @Option(names = "--cluster", paramLabel = "FILE",
        description = "Cluster map (JSON) listing every node; without it the node is a cluster of one.")
    Path cluster;

    @Option(names = "--auth-token", paramLabel = "TOKEN",
        description = "Token clients must present. Also read from $" + TOKEN_ENV + ". Default: none (any client).")
    String authToken;

    @Option(names = "--grace-ms", paramLabel = "MS", defaultValue = "100",
        description = "How long freed space waits before reuse. Default: ${DEFAULT-VALUE}.")
    long graceMs;

    @Option(names = "--chunk-size", paramLabel = "SIZE", defaultValue = "1m", converter = SizeConverter.class,
        description = "Data space granted to a client per request. Default: ${DEFAULT-VALUE}.")
    long chunkSize;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintWriter out;
    private final java.util.Map<String, String> environment;

    KvServerCommand(final PrintWriter out, final java.util.Map<String, String> environment)
    {
        this.out = out;
        this.environment = environment;
    }

    /** Builds the configuration from the parsed options; throws {@link CommandLine.ParameterException} on bad values. */
    ServerConfig config(final CommandLine cmd)
    {
        final int colon = listen.lastIndexOf(':');
        if (colon <= 0)
        {
            throw new CommandLine.ParameterException(cmd, "--listen must be HOST:PORT, not '" + listen + "'");
        }
        final int port;
        try
        {
            port = Integer.parseInt(listen.substring(colon + 1));
        }
        catch (final NumberFormatException e)
        {
            throw new CommandLine.ParameterException(cmd, "--listen port must be a number: '" + listen + "'");
        }
        if (port < 0 || port > 65535)
        {
            throw new CommandLine.ParameterException(cmd, "--listen port must be 0..65535: " + port);
        }
        if (!Providers.NAMES.contains(transport))
        {
            throw new CommandLine.ParameterException(cmd, "--transport must be one of " + Providers.NAMES + ", not '" +
                transport + "'");
        }
        if (graceMs < 0)
        {
            throw new CommandLine.ParameterException(cmd, "--grace-ms must not be negative");
        }
        if (chunkSize <= 0 || chunkSize > RegionGeometry.MAX_CHUNK_SIZE)
        {
            throw new CommandLine.ParameterException(cmd, "--chunk-size must be 1.." + RegionGeometry.MAX_CHUNK_SIZE +
                " bytes");
        }
        final String token = authToken != null ? authToken : environment.getOrDefault(TOKEN_ENV, "");
        return new ServerConfig(listen.substring(0, colon), port, memory, transport, nodeId, cluster, token,
            TimeUnit.MILLISECONDS.toNanos(graceMs), (int)chunkSize);
    }

    @Override
    public Integer call() throws Exception
    {
        final ServerConfig config = config(spec.commandLine());
        final KvServer server;
        try
        {
            server = KvServer.start(config);
        }
        catch (final Exception e)
        {
            System.err.println("kvserver: " + e.getMessage());
            return 1;
        }
        final CountDownLatch stop = new CountDownLatch(1);
        ShutdownSignals.onTerminate(stop::countDown);
        out.printf("kvserver node %d listening on %s:%d, transport %s, region %d bytes (%d index slots, %d data " +
                "bytes), grace %d ms%n", config.nodeId(), config.listenHost(), server.port(), server.transport(),
            server.geometry().regionLength(), server.geometry().slotCount(), server.geometry().dataLength(),
            TimeUnit.NANOSECONDS.toMillis(config.graceNanos()));
        out.flush();
        stop.await();
        out.println("kvserver: shutting down");
        out.flush();
        server.close();
        out.println("kvserver: stopped");
        out.flush();
        return 0;
    }

    public static void main(final String[] args)
    {
        final PrintWriter out = new PrintWriter(System.out, true);
        final KvServerCommand command = new KvServerCommand(out, System.getenv());
        final int code = new CommandLine(command).setParameterExceptionHandler(KvServerCommand::badUsage).execute(args);
        System.exit(code);
    }

    /** One line for a bad flag or value, and where to look: no wall of usage text. */
    static int badUsage(final CommandLine.ParameterException e, final String[] args)
    {
        final PrintWriter err = e.getCommandLine().getErr();
        err.println(e.getCommandLine().getCommandName() + ": " + e.getMessage());
        err.println("Try '" + e.getCommandLine().getCommandName() + " --help' for the options.");
        err.flush();
        return 2;
    }

    /** The version from the jar's manifest, or "development". */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String v = KvServerCommand.class.getPackage().getImplementationVersion();
            return new String[] {"kvserver " + (v == null ? "development" : v) + " (layout version " +
                io.rdmakv.common.layout.RegionHeaderDescriptor.LAYOUT_VERSION + ", protocol " +
                io.rdmakv.common.protocol.MessageHeaderDescriptor.PROTOCOL_VERSION + ")"};
        }
    }
}
