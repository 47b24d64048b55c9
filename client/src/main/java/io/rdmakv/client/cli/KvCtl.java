package io.rdmakv.client.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvException;
import io.rdmakv.common.protocol.StatsOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code kvctl}: get, put and delete keys and show node statistics from the command line.
 * Exit codes: 0 done, 1 key not found, 2 bad usage, 3 cannot reach the cluster, 4 other failure.
 */
@Command(
    name = "kvctl",
    mixinStandardHelpOptions = true,
    versionProvider = KvCtl.Version.class,
    description = "Talks to an rdmakv cluster.%nExit codes: 0 done, 1 key not found, 2 bad usage, " +
        "3 cannot reach the cluster, 4 other failure.%n",
    subcommands = {KvCtl.Get.class, KvCtl.Put.class, KvCtl.Delete.class, KvCtl.Stats.class})
public final class KvCtl implements Callable<Integer>
{
    public static final int OK = 0;
    public static final int NOT_FOUND = 1;
    public static final int USAGE = 2;
    public static final int UNREACHABLE = 3;
    public static final int FAILED = 4;

    @Option(names = "--hosts", paramLabel = "HOST:PORT[,...]", defaultValue = "127.0.0.1:7400",
        description = "Any node(s) of the cluster. Default: ${DEFAULT-VALUE}.", scope = CommandLine.ScopeType.INHERIT)
    String hosts;

    @Option(names = "--transport", paramLabel = "auto|tcp|ibverbs", defaultValue = "auto",
        description = "Transport; must match the nodes'. Default: ${DEFAULT-VALUE}.",
        scope = CommandLine.ScopeType.INHERIT)
    String transport;

    @Option(names = "--auth-token", paramLabel = "TOKEN",
        description = "The cluster's token (also $RDMAKV_AUTH_TOKEN).", scope = CommandLine.ScopeType.INHERIT)
    String authToken;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
        description = "Per-operation timeout. Default: ${DEFAULT-VALUE}.", scope = CommandLine.ScopeType.INHERIT)
    long timeoutMs;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call()
    {
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    KvClient connect()
    {
        final String token = authToken != null ? authToken : System.getenv().getOrDefault("RDMAKV_AUTH_TOKEN", "");
        return KvClient.connect(KvClientConfig.of(hosts).withTransport(transport).withAuthToken(token)
            .withOpTimeout(Duration.ofMillis(timeoutMs)).withConnectTimeout(Duration.ofMillis(timeoutMs))
            .withAsyncThreads(1));
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs {@code action} with a client, mapping failures to exit codes and one-line messages. */
    static int withClient(final KvCtl parent, final ClientAction action)
    {
        final PrintWriter err = parent.spec.commandLine().getErr();
        try (KvClient client = parent.connect())
        {
            return action.run(client, parent.spec.commandLine().getOut());
        }
        catch (final KvConnectionException e)
        {
            err.println("kvctl: " + e.getMessage());
            return UNREACHABLE;
        }
        catch (final KvException | IllegalArgumentException e)
        {
            err.println("kvctl: " + e.getMessage());
            return FAILED;
        }
    }

    @FunctionalInterface
    interface ClientAction
    {
        int run(KvClient client, PrintWriter out);
    }

    @Command(name = "get", description = "Prints the value of KEY (exit 1 when absent).")
    static final class Get implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        public Integer call()
        {
            return withClient(parent, (client, out) ->
            {
                final byte[] value = client.get(bytes(key));
                if (value == null)
                {
                    parent.spec.commandLine().getErr().println("kvctl: key not found: " + key);
                    return NOT_FOUND;
                }
                out.println(new String(value, StandardCharsets.UTF_8));
                return OK;
            });
        }
    }

    @Command(name = "put", description = "Sets KEY to VALUE.")
    static final class Put implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Parameters(index = "1", paramLabel = "VALUE")
        String value;

        @Override
        public Integer call()
        {
            return withClient(parent, (client, out) ->
            {
                client.put(bytes(key), bytes(value));
                out.println("OK");
                return OK;
            });
        }
    }

    @Command(name = "delete", description = "Removes KEY (exit 1 when absent).")
    static final class Delete implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        public Integer call()
        {
            return withClient(parent, (client, out) ->
            {
                if (!client.delete(bytes(key)))
                {
                    parent.spec.commandLine().getErr().println("kvctl: key not found: " + key);
                    return NOT_FOUND;
                }
                out.println("DELETED");
                return OK;
            });
        }
    }

    @Command(name = "stats", description = "Prints each node's memory, index load and clients.")
    static final class Stats implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Override
        public Integer call()
        {
            return withClient(parent, (client, out) ->
            {
                for (final Map.Entry<Integer, StatsOkMessage> e : client.nodeStats().entrySet())
                {
                    final StatsOkMessage s = e.getValue();
                    out.printf("node %d: memory %d/%d bytes used (%d free), index %d/%d slots (load %.4f), " +
                            "%d client session(s), %d grants%n", e.getKey(), s.memoryUsed(), s.memoryTotal(),
                        s.memoryFree(), s.indexSlotsUsed(), s.indexSlotsTotal(),
                        s.indexSlotsTotal() == 0 ? 0.0 : (double)s.indexSlotsUsed() / s.indexSlotsTotal(),
                        s.clients(), s.grants());
                }
                return OK;
            });
        }
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

    /** Runs kvctl with {@code args}; returns the exit code (for tests and {@link #main}). */
    public static int run(final PrintWriter out, final PrintWriter err, final String... args)
    {
        final CommandLine cmd = new CommandLine(new KvCtl());
        cmd.setOut(out);
        cmd.setErr(err);
        cmd.setParameterExceptionHandler((e, a) ->
        {
            e.getCommandLine().getErr().println("kvctl: " + e.getMessage());
            e.getCommandLine().getErr().println("Try 'kvctl --help' for usage.");
            e.getCommandLine().getErr().flush();
            return USAGE;
        });
        return cmd.execute(args);
    }

    public static void main(final String[] args)
    {
        final PrintWriter out = new PrintWriter(System.out, true);
        final PrintWriter err = new PrintWriter(System.err, true);
        final int code = run(out, err, args);
        out.flush();
        err.flush();
        System.exit(code);
    }
}
