package io.rdmakv.server;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.server.config.ConnectionDefaults;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.metrics.BuildInfo;
import io.rdmakv.verbs.ConnectionSetup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Precedence (flag, environment, file, default) and refusals of kvserver's configuration. */
class KvServerCommandTest
{
    @TempDir
    Path dir;

    private Path file(final String name, final String content) throws IOException
    {
        final Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    @Test
    void withNothingGivenEveryValueIsTheDocumentedDefault()
    {
        final CommandRun run = CommandRun.of();
        assertEquals(0, run.code(), run.err());
        assertEquals(ServerConfig.builder().build(), run.config());
        assertEquals("127.0.0.1", run.config().listenHost());
        assertEquals(7400, run.config().listenPort());
        assertEquals(1L << 30, run.config().memoryBytes());
        assertEquals("auto", run.config().transport());
        assertEquals(SpaceTiming.DEFAULT_GRACE_NANOS, run.config().graceNanos());
        assertEquals(1 << 20, run.config().chunkSize());
        assertFalse(run.config().metricsEnabled(), "metrics are off by default");
        assertFalse(run.config().hugePages());
        assertNull(run.config().device());
    }

    @Test
    void aFlagBeatsTheEnvironmentWhichBeatsTheFileWhichBeatsTheDefault() throws IOException
    {
        final Path config = file("kv.yaml", "memory: 64m\nnode-id: 3\nmetrics-port: 9400\ngrace-ms: 250\n");
        final Map<String, String> env = Map.of("RDMAKV_MEMORY", "32m", "RDMAKV_NODE_ID", "4");

        final ServerConfig all = CommandRun.of(env, "--config", config.toString(), "--memory", "16m").config();
        assertEquals(16L << 20, all.memoryBytes(), "flag beats environment and file");
        assertEquals(4, all.nodeId(), "environment beats file");
        assertEquals(9400, all.metricsPort(), "file beats default");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(250), all.graceNanos());
        assertEquals(7400, all.listenPort(), "default where nothing says otherwise");

        assertEquals(32L << 20, CommandRun.of(env, "--config=" + config).config().memoryBytes(),
            "environment beats file");
        assertEquals(64L << 20, CommandRun.of(Map.of(), "--config", config.toString()).config().memoryBytes(),
            "file beats default");
    }

    @Test
    void theConfigFileCanComeFromTheEnvironment() throws IOException
    {
        final Path config = file("kv.yaml", "listen: 0.0.0.0:7500\n");
        final ServerConfig c = CommandRun.of(Map.of("RDMAKV_CONFIG", config.toString())).config();
        assertEquals("0.0.0.0", c.listenHost());
        assertEquals(7500, c.listenPort());
    }

    @Test
    void everyKeyOfAYamlFileIsUsed() throws IOException
    {
        final Path cluster = file("cluster.json", """
            {"epoch": 1, "nodes": [{"id": 2, "host": "10.1.2.3", "port": 7401}]}
            """);
        final Path config = file("kv.yaml", """
            # a comment
            listen: 10.1.2.3:7401
            node-id: 2
            cluster: %s
            auth-token: s3cret
            memory: 2g
            chunk-size: 512k
            grace-ms: 50
            session-quota: 256m
            huge-pages: true
            transport: tcp
            device: mlx5_1
            device-port: 2
            metrics-port: 9401
            metrics-host: 127.0.0.1
            lease-timeout-ms: 2000
            heartbeat-ms: 250
            memory-windows: off
            tls-cert: /etc/rdmakv/node.pem
            tls-key: /etc/rdmakv/node.key
            tls-client-ca: /etc/rdmakv/clients-ca.pem
            insecure: true
            """.formatted(cluster));
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString());
        assertEquals(0, run.code(), run.err());
        assertEquals(new ServerConfig("10.1.2.3", 7401, 2L << 30, "tcp", 2, cluster, "s3cret",
            TimeUnit.MILLISECONDS.toNanos(50), 512 << 10, "mlx5_1", 2, true, "127.0.0.1", 9401,
            TimeUnit.MILLISECONDS.toNanos(2000), TimeUnit.MILLISECONDS.toNanos(250), 256L << 20, null, 0,
            MemoryWindowMode.OFF,

            new ServerConfig.ServerTls(Path.of("/etc/rdmakv/node.pem"), Path.of("/etc/rdmakv/node.key"),
                Path.of("/etc/rdmakv/clients-ca.pem")), true, null),
            run.config());
    }

    @Test
    void zooKeeperFlagsComeFromFlagsEnvironmentOrFileWithTheirDefaults() throws IOException
    {
        final CommandRun plain = CommandRun.of("--zookeeper", "zk1:2181,zk2:2181", "--cluster-name", "prod-1");
        assertEquals(0, plain.code(), plain.err());
        assertEquals(new ServerConfig.ZooKeeper("zk1:2181,zk2:2181", "prod-1", 1, 4000), plain.config().zookeeper());
        final Path config = file("zk.yaml", "zookeeper: 127.0.0.1:2181\ncluster-name: c_2\nreplicas: 3\n" +
            "zk-session-timeout-ms: 6000\npartitions: 256\nmove-stuck-ms: 60000\n");
        final CommandRun fromFile = CommandRun.of(Map.of("RDMAKV_REPLICAS", "2"), "--config", config.toString());
        assertEquals(0, fromFile.code(), fromFile.err());
        assertEquals(new ServerConfig.ZooKeeper("127.0.0.1:2181", "c_2", 2, 256, 6000, null, null, 60_000),
            fromFile.config().zookeeper(),
            "the environment beats the file");
        assertNull(CommandRun.of().config().zookeeper(), "without --zookeeper the node runs without ZooKeeper");
    }

    @Test
    void badZooKeeperCombinationsExitTwoWithOneLineSayingWhy() throws IOException
    {
        final Path cluster = file("cluster.json", "{\"epoch\": 1, \"nodes\": [{\"id\": 0, \"host\": \"127.0.0.1\", " +
            "\"port\": 7400}]}");
        assertBadUsage("exclude each other", "--cluster", cluster.toString(), "--zookeeper", "zk:2181",
            "--cluster-name", "c");
        assertBadUsage("needs --cluster-name", "--zookeeper", "zk:2181");
        assertBadUsage("'--cluster-name'", "--zookeeper", "zk:2181", "--cluster-name", "no/slash");
        assertBadUsage("'--cluster-name'", "--zookeeper", "zk:2181", "--cluster-name", "x".repeat(65));
        assertBadUsage("'--cluster-name'", "--zookeeper", "zk:2181", "--cluster-name", "-looks-like-a-flag");
        assertEquals(0, CommandRun.of("--zookeeper", "zk:2181", "--cluster-name", "x".repeat(64)).code());
        assertBadUsage("'--zookeeper'", "--zookeeper", "zk", "--cluster-name", "c");
        assertBadUsage("'--zookeeper'", "--zookeeper", "zk:2181,", "--cluster-name", "c");
        assertBadUsage("'--replicas'", "--zookeeper", "zk:2181", "--cluster-name", "c", "--replicas", "6");
        assertBadUsage("'--replicas'", "--zookeeper", "zk:2181", "--cluster-name", "c", "--replicas", "0");
        assertBadUsage("only with --zookeeper", "--replicas", "2");
        assertBadUsage("only with --zookeeper", "--partitions", "64");
        for (final String partitions : new String[] {"4", "100", "131072", "0", "-64"})
        {
            assertBadUsage("'--partitions'", "--zookeeper", "zk:2181", "--cluster-name", "c", "--partitions",
                partitions);
        }
        assertEquals(64, CommandRun.of("--zookeeper", "zk:2181", "--cluster-name", "c", "--partitions", "64").config()
            .zookeeper().partitions());
        assertBadUsage("only with --zookeeper", "--cluster-name", "c");
        assertBadUsage("only with --zookeeper", "--zk-session-timeout-ms", "5000");
        assertBadUsage("'--zk-session-timeout-ms'", "--zookeeper", "zk:2181", "--cluster-name", "c",
            "--zk-session-timeout-ms", "999");
        assertBadUsage("'--zk-session-timeout-ms'", "--zookeeper", "zk:2181", "--cluster-name", "c",
            "--zk-session-timeout-ms", "60001");
        assertBadUsage("only with --zookeeper", "--move-stuck-ms", "1000");
        assertBadUsage("'--move-stuck-ms'", "--zookeeper", "zk:2181", "--cluster-name", "c", "--move-stuck-ms", "-1");
        assertBadUsage("'--move-stuck-ms'", "--zookeeper", "zk:2181", "--cluster-name", "c", "--move-stuck-ms",
            "86400001");
        assertEquals(0, CommandRun.of("--zookeeper", "zk:2181", "--cluster-name", "c", "--move-stuck-ms", "0").config()
            .zookeeper().moveStuckMs(), "0: never");
        assertEquals(ServerConfig.ZooKeeper.DEFAULT_MOVE_STUCK_MS, CommandRun.of("--zookeeper", "zk:2181",
            "--cluster-name", "c").config().zookeeper().moveStuckMs());
    }

    private static void assertBadUsage(final String expected, final String... args)
    {
        final CommandRun run = CommandRun.of(args);
        assertEquals(KvServerCommand.EXIT_USAGE, run.code(), run.err());
        assertNull(run.config(), "nothing started");
        final String first = run.err().lines().findFirst().orElse("");
        assertTrue(first.startsWith("kvserver: ") && first.contains(expected), "'" + expected + "' in: " + run.err());
        assertEquals(List.of(first, "Try 'kvserver --help' for the options."), run.err().lines().toList(),
            "one line saying why, then where the options are");
    }

    @Test
    void aClusterMapThatCannotBeUsedIsAUsageError() throws IOException, InterruptedException
    {
        final Path other = file("other.json", """
            {"epoch": 1, "nodes": [{"id": 0, "host": "127.0.0.1", "port": 7500}]}
            """);
        assertUsageError(CommandRun.of("--cluster", other.toString(), "--listen", "127.0.0.1:0", "--memory", "16m",
            "--transport", "tcp").config(), "lists node 0 at 127.0.0.1:7500, but its address is 127.0.0.1:");
        assertUsageError(CommandRun.of("--cluster", other.toString(), "--node-id", "4", "--listen", "127.0.0.1:0",
            "--memory", "16m", "--transport", "tcp").config(), "does not list node id 4");
        assertUsageError(CommandRun.of("--cluster", file("broken.json", "{nodes").toString(), "--listen",
            "127.0.0.1:0", "--memory", "16m", "--transport", "tcp").config(), "cluster map ");
        assertUsageError(CommandRun.of("--cluster", "/nonexistent/cluster.json", "--listen", "127.0.0.1:0",
            "--memory", "16m", "--transport", "tcp").config(), "cannot read cluster map");
        final CommandRun proxied = CommandRun.of("--cluster", other.toString(), "--listen", "127.0.0.1:7400",
            "--advertise", "127.0.0.1:7500");
        assertEquals(0, proxied.code(), proxied.err());
        assertEquals(7500, proxied.config().advertisePort());
        assertUsageError(proxied.config().toBuilder().listen("127.0.0.1", 0).memoryBytes(16L << 20).build(), null);
    }

    /** Runs the node as kvserver does: a usage error (exit 2) naming {@code expected}, or starts (null) and stops. */
    private static void assertUsageError(final ServerConfig config, final String expected) throws InterruptedException
    {
        final java.io.StringWriter out = new java.io.StringWriter();
        final java.io.StringWriter err = new java.io.StringWriter();
        if (expected == null)
        {
            try (KvServer node = KvServer.start(config.toBuilder().transport("tcp").build()))
            {
                assertTrue(node.port() > 0, "a node advertised where the map lists it starts");
            }
            catch (final IOException e)
            {
                throw new AssertionError(e);
            }
            return;
        }
        assertEquals(KvServerCommand.EXIT_USAGE, NodeRunner.run(config, new java.io.PrintWriter(out),
            new java.io.PrintWriter(err)), err.toString());
        assertTrue(err.toString().contains(expected), err.toString());
    }

    @Test
    void connectionSetupComesFromCmAndRdmacmNeedsIbverbs()
    {
        assertEquals(ConnectionSetup.AUTO, CommandRun.of().config().connectionSetup(), "default: auto");
        assertNull(CommandRun.of().config().cmAddress(), "default: derived");
        final ServerConfig cm = CommandRun.of("--cm", "rdmacm", "--cm-address", "10.77.0.1", "--transport", "ibverbs")
            .config();
        assertEquals(ConnectionSetup.RDMACM, cm.connectionSetup());
        assertEquals("10.77.0.1", cm.cmAddress());
        assertEquals(ConnectionSetup.EXCHANGE, CommandRun.of("--cm", "exchange").config().connectionSetup());
        assertEquals(ConnectionSetup.EXCHANGE, CommandRun.of(Map.of("RDMAKV_CM", "exchange")).config()
            .connectionSetup(), "from the environment too");
        assertEquals(ConnectionSetup.EXCHANGE, cm.toBuilder().connectionSetup(ConnectionSetup.EXCHANGE, null).build()
            .connectionSetup());
        assertBadUsage("'--cm'", "--cm", "iwarp");
        assertBadUsage("rdma_cm needs --transport ibverbs", "--cm", "rdmacm", "--transport", "tcp");
    }

    @Test
    void aNodeAskedForRdmacmOnTheTcpTransportDoesNotStartAndSaysWhatToUse() throws InterruptedException
    {
        final ServerConfig config = ServerConfig.local(16L << 20).toBuilder()
            .connectionSetup(ConnectionSetup.RDMACM, null).build(); // as --transport auto resolves here: tcp
        final java.io.StringWriter err = new java.io.StringWriter();
        assertEquals(KvServerCommand.EXIT_START_FAILED, NodeRunner.run(config, new java.io.PrintWriter(
            new java.io.StringWriter()), new java.io.PrintWriter(err)), err.toString());
        assertTrue(err.toString().contains("--cm rdmacm needs the ibverbs transport") &&
            err.toString().contains("use --cm auto or exchange"), err.toString());
    }

    @Test
    void aJsonFileIsReadLikeYaml() throws IOException
    {
        final Path config = file("kv.json", "{\"memory\": \"128m\", \"node-id\": 1, \"huge-pages\": false}");
        final ServerConfig c = CommandRun.of(Map.of(), "--config", config.toString()).config();
        assertEquals(128L << 20, c.memoryBytes());
        assertEquals(1, c.nodeId());
    }

    @Test
    void leaseTimeoutAndHeartbeatComeFromFlagsEnvironmentOrFileAndHeartbeatsFitTwiceInALease() throws IOException
    {
        final ServerConfig defaults = CommandRun.of().config();
        assertEquals(TimeUnit.SECONDS.toNanos(3), defaults.leaseTimeoutNanos());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(500), defaults.heartbeatIntervalNanos());
        final ServerConfig flags = CommandRun.of("--lease-timeout-ms", "1000", "--heartbeat-ms", "200").config();
        assertEquals(TimeUnit.SECONDS.toNanos(1), flags.leaseTimeoutNanos());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(200), flags.heartbeatIntervalNanos());
        final Map<String, String> env = Map.of("RDMAKV_LEASE_TIMEOUT_MS", "10000", "RDMAKV_HEARTBEAT_MS", "1000");
        assertEquals(TimeUnit.SECONDS.toNanos(10), CommandRun.of(env).config().leaseTimeoutNanos());
        assertEquals(TimeUnit.SECONDS.toNanos(1), CommandRun.of(env).config().heartbeatIntervalNanos());

        final CommandRun tooSlow = CommandRun.of("--lease-timeout-ms", "1000", "--heartbeat-ms", "500");
        assertEquals(KvServerCommand.EXIT_USAGE, tooSlow.code());
        assertTrue(tooSlow.err().startsWith("kvserver: Invalid value for option '--heartbeat-ms': expected " +
            "1..499 milliseconds (less than half of --lease-timeout-ms 1000), not '500'"), tooSlow.err());
        assertEquals(KvServerCommand.EXIT_USAGE, CommandRun.of("--heartbeat-ms", "0").code());
        final CommandRun tooShort = CommandRun.of("--lease-timeout-ms", "100");
        assertTrue(tooShort.err().contains("'--lease-timeout-ms': expected 250..3600000 milliseconds"), tooShort.err());
        assertRefused(file("lease.yaml", "heartbeat-ms: 2000\n"), "key 'heartbeat-ms'", "less than half");
    }

    @Test
    void maxConnectionsComesFromFlagEnvironmentOrFileAndMustBePositive() throws IOException
    {
        assertEquals(0, CommandRun.of().config().maxConnections(), "not given: derived from the descriptor limit");
        assertEquals(ConnectionDefaults.defaultFor(
            ConnectionDefaults.processDescriptorLimit()),
            CommandRun.of().config().effectiveMaxConnections());
        assertEquals(500, CommandRun.of("--max-connections", "500").config().maxConnections());
        assertEquals(500, CommandRun.of("--max-connections", "500").config().effectiveMaxConnections());
        assertEquals(40, CommandRun.of(Map.of("RDMAKV_MAX_CONNECTIONS", "40")).config().maxConnections());
        final Path config = file("c.yaml", "max-connections: 7\n");
        assertEquals(7, CommandRun.of(Map.of(), "--config", config.toString()).config().maxConnections());

        final CommandRun zero = CommandRun.of("--max-connections", "0");
        assertEquals(KvServerCommand.EXIT_USAGE, zero.code());
        assertTrue(zero.err().startsWith("kvserver: Invalid value for option '--max-connections': expected a " +
            "positive number of connections, not '0'"), zero.err());
        assertEquals(KvServerCommand.EXIT_USAGE, CommandRun.of("--max-connections", "-3").code());
        final CommandRun word = CommandRun.of("--max-connections", "many");
        assertEquals(KvServerCommand.EXIT_USAGE, word.code());
        assertTrue(word.err().contains("'--max-connections'"), word.err());
        final CommandRun env = CommandRun.of(Map.of("RDMAKV_MAX_CONNECTIONS", "0"));
        assertEquals(KvServerCommand.EXIT_USAGE, env.code());
        assertTrue(env.err().startsWith("kvserver: environment variable RDMAKV_MAX_CONNECTIONS:"), env.err());
        assertRefused(file("c0.yaml", "max-connections: -1\n"), "key 'max-connections'", "positive");
    }

    @Test
    void hugePagesIsAFlagWithAnOptionalValue() throws IOException
    {
        assertTrue(CommandRun.of("--huge-pages").config().hugePages());
        assertFalse(CommandRun.of("--huge-pages=false").config().hugePages());
        final Path config = file("kv.yaml", "huge-pages: true\n");
        assertTrue(CommandRun.of(Map.of(), "--config", config.toString()).config().hugePages());
        assertFalse(CommandRun.of(Map.of(), "--config", config.toString(), "--huge-pages=false").config().hugePages());
    }

    @Test
    void theSessionQuotaIsAFlagAnEnvironmentVariableAndAKeyAndZeroMeansAQuarterOfTheDataArea() throws IOException
    {
        assertEquals(0, CommandRun.of().config().sessionQuotaBytes());
        assertEquals(256L << 20, CommandRun.of("--session-quota", "256m").config().sessionQuotaBytes());
        assertEquals(64L << 20, CommandRun.of(Map.of("RDMAKV_SESSION_QUOTA", "64m")).config().sessionQuotaBytes());
        final Path config = file("q.yaml", "session-quota: 32m\n");
        assertEquals(32L << 20, CommandRun.of(Map.of(), "--config", config.toString()).config().sessionQuotaBytes());
        assertEquals(1L << 28, CommandRun.of().config().sessionQuotaFor(1L << 30), "a quarter of 1 GiB");
        assertEquals(1L << 30, CommandRun.of("--session-quota", "2g", "--memory", "4g").config()
            .sessionQuotaFor(1L << 30), "never more than the data area");
        assertRefused(file("q2.yaml", "session-quota: 8g\n"), "key 'session-quota'", "up to the region size");
    }

    @Test
    void theAuthTokenComesFromTheEnvironmentUnlessAFlagGivesIt()
    {
        final Map<String, String> env = Map.of(KvServerCommand.TOKEN_ENV, "from-env");
        assertEquals("from-env", CommandRun.of(env).config().authToken());
        assertEquals("flag", CommandRun.of(env, "--auth-token", "flag").config().authToken());
        assertEquals("", CommandRun.of().config().authToken());
    }

    @Test
    void anUnknownKeyIsRefusedWithItsNameAndTheKnownKeys() throws IOException
    {
        final Path config = file("kv.yaml", "memory: 1g\nmemroy: 2g\n");
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString());
        assertEquals(KvServerCommand.EXIT_USAGE, run.code());
        assertNull(run.config(), "nothing started");
        assertTrue(run.err().contains("unknown key 'memroy'"), run.err());
        assertTrue(run.err().contains("listen, node-id, cluster"), run.err());
        assertTrue(run.err().contains(config.toString()), run.err());
    }

    @Test
    void aBadValueInTheFileNamesTheFileTheKeyAndWhatWasExpected() throws IOException
    {
        assertRefused(file("a.yaml", "memory: lots\n"), "key 'memory'", "'lots' is not a size");
        assertRefused(file("b.yaml", "transport: rdma\n"), "key 'transport'", "expected one of auto, tcp, ibverbs");
        assertRefused(file("c.yaml", "listen: nowhere\n"), "key 'listen'", "expected HOST:PORT");
        assertRefused(file("d.yaml", "grace-ms: -1\n"), "key 'grace-ms'", "milliseconds");
        assertRefused(file("e.yaml", "node-id: one\n"), "key 'node-id'", "'one' is not an int");
        assertRefused(file("f.yaml", "metrics-port: 70000\n"), "key 'metrics-port'", "a port in 1..65535");
        assertRefused(file("g.yaml", "memory: 1k\n"), "key 'memory'", "expected at least");
        assertRefused(file("h.yaml", "chunk-size: 0\n"), "key 'chunk-size'", "expected 1..");
    }

    private static void assertRefused(final Path config, final String... expected)
    {
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString());
        assertEquals(KvServerCommand.EXIT_USAGE, run.code(), run.err());
        assertNull(run.config());
        assertTrue(run.err().startsWith("kvserver: config file " + config), run.err());
        for (final String e : expected)
        {
            assertTrue(run.err().contains(e), "'" + e + "' in: " + run.err());
        }
    }

    @Test
    void aBadValueInTheEnvironmentNamesTheVariable()
    {
        final CommandRun run = CommandRun.of(Map.of("RDMAKV_TRANSPORT", "rdma"));
        assertEquals(KvServerCommand.EXIT_USAGE, run.code());
        assertTrue(run.err().startsWith("kvserver: environment variable RDMAKV_TRANSPORT:"), run.err());
        assertTrue(run.err().contains("expected one of auto, tcp, ibverbs, not 'rdma'"), run.err());
    }

    @Test
    void aBadFlagSaysSoWithoutBlamingTheFileOrEnvironment() throws IOException
    {
        final Path config = file("kv.yaml", "memory: 64m\n");
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString(), "--memory", "much");
        assertEquals(KvServerCommand.EXIT_USAGE, run.code());
        assertTrue(run.err().startsWith("kvserver: Invalid value for option '--memory'"), run.err());
        final CommandRun unknown = CommandRun.of("--memroy", "1g");
        assertEquals(KvServerCommand.EXIT_USAGE, unknown.code());
        assertTrue(unknown.err().contains("Unknown options: '--memroy'"), unknown.err());
    }

    @Test
    void aFlagOverridesABadValueInTheFile() throws IOException
    {
        final Path config = file("kv.yaml", "memory: lots\n");
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString(), "--memory", "64m");
        assertEquals(0, run.code(), run.err());
        assertEquals(64L << 20, run.config().memoryBytes());
    }

    @Test
    void malformedFilesAreRefusedSayingWhy() throws IOException
    {
        assertFileRefused(file("list.yaml", "memory: [1g, 2g]\n"), "key 'memory' must be a single value");
        assertFileRefused(file("map.yaml", "memory:\n  size: 1g\n"), "key 'memory' must be a single value");
        assertFileRefused(file("empty-value.yaml", "memory:\n"), "key 'memory' has no value");
        assertFileRefused(file("twice.yaml", "memory: 1g\nmemory: 2g\n"), "Duplicate field 'memory'");
        assertFileRefused(file("scalar.yaml", "just text\n"), "must be a mapping");
        assertFileRefused(file("broken.json", "{\"memory\": "), "is not valid JSON");
        assertFileRefused(file("config.yaml", "config: other.yaml\n"), "unknown key 'config'");
        assertFileRefused(dir.resolve("missing.yaml"), "cannot read config file");
    }

    private static void assertFileRefused(final Path config, final String expected)
    {
        final CommandRun run = CommandRun.of(Map.of(), "--config", config.toString());
        assertEquals(KvServerCommand.EXIT_USAGE, run.code(), run.err());
        assertTrue(run.err().contains(expected), "'" + expected + "' in: " + run.err());
    }

    @Test
    void anEmptyFileSetsNothing() throws IOException
    {
        final CommandRun run = CommandRun.of(Map.of(), "--config", file("empty.yaml", "").toString());
        assertEquals(0, run.code(), run.err());
        assertEquals(ServerConfig.builder().build(), run.config());
    }

    @Test
    void helpDocumentsEveryOptionWithItsDefaultAndTheEnvironment()
    {
        final CommandRun run = CommandRun.of("--help");
        assertEquals(0, run.code());
        final CommandLine cmd = new CommandLine(new KvServerCommand(config -> 0));
        for (final CommandLine.Model.OptionSpec option : cmd.getCommandSpec().options())
        {
            assertTrue(run.out().contains(option.longestName()), option.longestName());
            if (!option.usageHelp() && !option.versionHelp())
            {
                assertTrue(String.join(" ", option.description()).contains("Default"),
                    option.longestName() + " documents its default");
            }
        }
        assertTrue(run.out().contains("RDMAKV_MEMORY"), run.out());
        assertTrue(run.out().contains("A flag beats the environment, which beats the file"), run.out());
        assertEquals(KvServerCommand.fileKeys(cmd).size() + 1, cmd.getCommandSpec().options().size() - 2,
            "every option but config, help and version is a file key");
    }

    @Test
    void helpIgnoresABrokenConfigFile() throws IOException
    {
        final Path config = file("kv.yaml", "memroy: 1g\n");
        assertEquals(0, CommandRun.of(Map.of("RDMAKV_CONFIG", config.toString()), "--help").code());
    }

    @Test
    void versionNamesTheBuildLayoutAndProtocol()
    {
        final CommandRun run = CommandRun.of("--version");
        assertEquals(0, run.code());
        assertTrue(run.out().startsWith("kvserver " + BuildInfo.VERSION + " (layout version "), run.out());
    }
}
