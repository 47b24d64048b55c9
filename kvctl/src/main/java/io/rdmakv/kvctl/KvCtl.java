package io.rdmakv.kvctl;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.ClientTls;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvException;
import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Providers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code kvctl}: get, put and delete keys, show node statistics, ping the nodes and print the cluster map
 * from the command line. Human-readable output by default, one JSON document per command with
 * {@code --json}. Exit codes: 0 done, 1 key not found, 2 bad usage, 3 cannot reach the cluster, 4 other
 * failure.
 */
@Command(
    name = "kvctl",
    mixinStandardHelpOptions = true,
    versionProvider = KvCtl.Version.class,
    description = "Talks to an rdmakv cluster.%n",
    footer = "%nExit codes: 0 done, 1 key not found, 2 bad usage, 3 cannot reach the cluster, 4 other failure." +
        "%nWith --json, each command prints one JSON document on stdout; a failure prints {\"error\": ..., " +
        "\"exitCode\": N} there too.",
    subcommands = {KeyCommands.Get.class, KeyCommands.Put.class, KeyCommands.Delete.class, StatsCommand.class,
        PingCommand.class, ClusterCommand.class, DamagedCommand.class, ScrubCommand.class, RebalanceCommand.class,
        DrainCommand.class})
public final class KvCtl implements Callable<Integer>
{
    public static final int OK = 0;
    public static final int NOT_FOUND = 1;
    public static final int USAGE = 2;
    public static final int UNREACHABLE = 3;
    public static final int FAILED = 4;
    /** The auth token when {@code --auth-token} is not given. */
    public static final String TOKEN_ENV = "RDMAKV_AUTH_TOKEN";

    @Option(names = "--hosts", paramLabel = "HOST:PORT[,...]", defaultValue = "127.0.0.1:7400",
        description = "Any node(s) of the cluster. Default: ${DEFAULT-VALUE}.", scope = CommandLine.ScopeType.INHERIT)
    String hosts;

    @Option(names = "--transport", paramLabel = "auto|tcp|ibverbs", defaultValue = "auto",
        description = "Transport; must match the nodes'. Default: ${DEFAULT-VALUE}.",
        scope = CommandLine.ScopeType.INHERIT)
    String transport;

    @Option(names = "--cm", paramLabel = "auto|rdmacm|exchange", defaultValue = "auto",
        description = "How queue pairs are connected: auto (as each node chose, kvserver --cm), rdmacm (the RDMA " +
            "connection manager; ibverbs only) or exchange. Default: ${DEFAULT-VALUE}.",
        scope = CommandLine.ScopeType.INHERIT)
    String cm;

    @Option(names = "--device", paramLabel = "NAME",
        description = "RDMA device to open (ibverbs), e.g. mlx5_0 or rxe1: the one on the nodes' network. " +
            "Default: the first device whose port is ACTIVE.", scope = CommandLine.ScopeType.INHERIT)
    String device;

    @Option(names = "--auth-token", paramLabel = "TOKEN",
        description = "The cluster's token. Default: $" + TOKEN_ENV + ", else none.",
        scope = CommandLine.ScopeType.INHERIT)
    String authToken;

    @Option(names = "--tls-ca", paramLabel = "FILE",
        description = "PEM CA certificate(s) that vouch for the nodes: connect over TLS 1.3 (nodes started with " +
            "--tls-cert). Default: none (plaintext).", scope = CommandLine.ScopeType.INHERIT)
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE",
        description = "PEM certificate chain of this client, for nodes that require client certificates " +
            "(--tls-client-ca); needs --tls-key and --tls-ca.", scope = CommandLine.ScopeType.INHERIT)
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE",
        description = "PEM private key (unencrypted PKCS#8) of --tls-cert.", scope = CommandLine.ScopeType.INHERIT)
    Path tlsKey;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
        description = "Per-operation and connect timeout. Default: ${DEFAULT-VALUE}.",
        scope = CommandLine.ScopeType.INHERIT)
    long timeoutMs;

    @Option(names = "--json", description = "Print JSON for scripts instead of text.",
        scope = CommandLine.ScopeType.INHERIT)
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final Map<String, String> environment;

    KvCtl(final Map<String, String> environment)
    {
        this.environment = environment;
    }

    @Override
    public Integer call()
    {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    /** What a subcommand does with a connected client; returns the exit code. */
    @FunctionalInterface
    interface ClientAction
    {
        int run(KvClient client, Output out);
    }

    /** Connects, runs {@code action}, and maps failures to exit codes and one-line messages. */
    int withClient(final ClientAction action)
    {
        final Output out = output();
        if (!Providers.NAMES.contains(transport))
        {
            return out.failure(USAGE, "--transport must be one of " + String.join(", ", Providers.NAMES) + ", not '" +
                transport + "'");
        }
        final KvClientConfig config;
        try
        {
            final String token = authToken != null ? authToken : environment.getOrDefault(TOKEN_ENV, "");
            config = KvClientConfig.of(hosts).withTransport(transport).withConnectionSetup(ConnectionSetup.parse(cm))
                .withAuthToken(token)
                .withOpTimeout(Duration.ofMillis(timeoutMs)).withConnectTimeout(Duration.ofMillis(timeoutMs))
                .withAsyncThreads(1).withTls(tls()).withDevice(device);
        }
        catch (final IllegalArgumentException e)
        {
            return out.failure(USAGE, e.getMessage());
        }
        try (KvClient client = KvClient.connect(config))
        {
            return action.run(client, out);
        }
        catch (final KvConnectionException e)
        {
            return out.failure(UNREACHABLE, e.getMessage());
        }
        catch (final KvException | IllegalArgumentException e)
        {
            return out.failure(FAILED, e.getMessage());
        }
    }

    /** TLS as the --tls-* options say, or null; refuses a certificate without its key or without a CA. */
    private ClientTls tls()
    {
        if ((tlsCert == null) != (tlsKey == null))
        {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together (a certificate and its key)");
        }
        if (tlsCa == null)
        {
            if (tlsCert != null)
            {
                throw new IllegalArgumentException("--tls-cert needs --tls-ca, the CA that vouches for the nodes");
            }
            return null;
        }
        return tlsCert == null ? ClientTls.trusting(tlsCa) : ClientTls.withCertificate(tlsCa, tlsCert, tlsKey);
    }

    Output output()
    {
        return new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), json);
    }

    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            final String v = KvCtl.class.getPackage().getImplementationVersion();
            return new String[] {"kvctl " + (v == null ? "development" : v)};
        }
    }

    /** Runs kvctl with {@code args} and the process environment; returns the exit code. */
    public static int run(final PrintWriter out, final PrintWriter err, final String... args)
    {
        return run(out, err, System.getenv(), args);
    }

    /** Runs kvctl with {@code args} and {@code environment}; returns the exit code (tests, {@link #main}). */
    public static int run(final PrintWriter out, final PrintWriter err, final Map<String, String> environment,
        final String... args)
    {
        final CommandLine cmd = new CommandLine(new KvCtl(environment));
        cmd.setOut(out);
        cmd.setErr(err);
        cmd.setParameterExceptionHandler((e, a) ->
        {
            e.getCommandLine().getErr().println("kvctl: " + e.getMessage());
            e.getCommandLine().getErr().println("Try 'kvctl --help' for usage.");
            e.getCommandLine().getErr().flush();
            return USAGE;
        });
        final int code = cmd.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    public static void main(final String[] args)
    {
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(out, err, args));
    }
}
