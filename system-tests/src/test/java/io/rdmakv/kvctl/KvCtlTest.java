package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kvctl in-process against live nodes (LocalCluster): every command, text and JSON, and the exit codes. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvCtlTest
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<KvServer> NODES = new ArrayList<>();
    private static KvServer guarded;
    private static String hosts;

    @TempDir
    static Path dir;

    /** What one kvctl run printed and returned. */
    record Run(int code, String out, String err)
    {
        JsonNode json() throws IOException
        {
            return JSON.readTree(out);
        }
    }

    @BeforeAll
    static void startTwoNodesAndAGuardedOne() throws IOException
    {
        final int[] ports = freePorts(2);
        final Path map = dir.resolve("cluster.json");
        Files.writeString(map, ClusterMap.of(1, List.of(new ClusterNode(0, "127.0.0.1", ports[0]),
            new ClusterNode(1, "127.0.0.1", ports[1]))).toJson());
        for (int id = 0; id < 2; id++)
        {
            NODES.add(LocalCluster.startNode(ServerConfig.local(8L << 20).withListen("127.0.0.1", ports[id])
                .withCluster(id, map)));
        }
        hosts = "127.0.0.1:" + ports[0];
        guarded = LocalCluster.startNode(ServerConfig.local(8L << 20).withAuthToken("secret"));
    }

    @AfterAll
    static void stopNodes()
    {
        NODES.forEach(KvServer::close);
        guarded.close();
    }

    static int[] freePorts(final int n) throws IOException
    {
        final int[] ports = new int[n];
        final ServerSocket[] sockets = new ServerSocket[n];
        for (int i = 0; i < n; i++)
        {
            sockets[i] = new ServerSocket(0);
            ports[i] = sockets[i].getLocalPort();
        }
        for (final ServerSocket s : sockets)
        {
            s.close();
        }
        return ports;
    }

    static Run kvctl(final Map<String, String> env, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), env, args);
        return new Run(code, out.toString(), err.toString());
    }

    private static Run kvctl(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("--hosts", hosts, "--transport", LocalCluster.TRANSPORT));
        all.addAll(List.of(args));
        return kvctl(Map.of(), all.toArray(String[]::new));
    }

    @Test
    void putGetDeleteAndNotFound()
    {
        assertEquals(new Run(0, "OK\n", ""), kvctl("put", "greeting", "hello, world"));
        assertEquals(new Run(0, "hello, world\n", ""), kvctl("get", "greeting"));
        assertEquals(new Run(0, "DELETED\n", ""), kvctl("delete", "greeting"));
        final Run missing = kvctl("get", "greeting");
        assertEquals(KvCtl.NOT_FOUND, missing.code());
        assertEquals("", missing.out());
        assertEquals("kvctl: key not found: greeting\n", missing.err());
        assertEquals(KvCtl.NOT_FOUND, kvctl("delete", "greeting").code());
    }

    @Test
    void jsonForScripts() throws IOException
    {
        final JsonNode put = kvctl("--json", "put", "k", "v1").json();
        assertEquals("k", put.path("key").asText());
        assertTrue(put.path("ok").asBoolean());
        final JsonNode got = kvctl("get", "k", "--json").json();
        assertEquals("v1", got.path("value").asText());
        assertTrue(got.path("version").asLong() != 0, "the version (slot word) is reported");
        assertTrue(kvctl("--json", "delete", "k").json().path("deleted").asBoolean());
        final Run missing = kvctl("--json", "get", "k");
        assertEquals(KvCtl.NOT_FOUND, missing.code());
        assertEquals(KvCtl.NOT_FOUND, missing.json().path("exitCode").asInt());
        assertEquals("key not found: k", missing.json().path("error").asText());
    }

    @Test
    void statsPerNode() throws IOException
    {
        kvctl("put", "stats-key", "x");
        final Run text = kvctl("stats");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().matches("(?s)node 0 127\\.0\\.0\\.1:\\d+: memory .*write path one-sided\n" +
            "node 1 127\\.0\\.0\\.1:\\d+: memory .*write path one-sided\n.*"), text.out());
        final JsonNode json = kvctl("--json", "stats").json().path("nodes");
        assertEquals(2, json.size());
        long used = 0;
        for (final JsonNode node : json)
        {
            assertTrue(node.path("indexSlotsTotal").asLong() > 0);
            assertTrue(node.path("memoryTotal").asLong() >= node.path("memoryUsed").asLong());
            assertEquals("one-sided", node.path("writePath").asText(), "a device with atomics: one-sided");
            used += node.path("indexSlotsUsed").asLong();
        }
        assertTrue(used >= 1, "the key is counted on its node");
    }

    @Test
    void statsShowsTheNodesItReachedAndNamesTheOthers() throws IOException
    {
        final int[] ports = freePorts(2);
        final Path map = dir.resolve("half-down.json");
        Files.writeString(map, ClusterMap.of(1, List.of(new ClusterNode(0, "127.0.0.1", ports[0]),
            new ClusterNode(1, "127.0.0.1", ports[1]))).toJson());
        try (KvServer up = LocalCluster.startNode(ServerConfig.local(8L << 20).withListen("127.0.0.1", ports[0])
            .withCluster(0, map)))
        {
            final String[] base = {"--hosts", "127.0.0.1:" + ports[0], "--transport", LocalCluster.TRANSPORT,
                "--timeout-ms", "2000"};
            final Run text = kvctl(Map.of(), concat(base, "stats"));
            assertEquals(KvCtl.UNREACHABLE, text.code(), text.out() + text.err());
            assertTrue(text.out().contains("node 0 127.0.0.1:" + ports[0] + ": memory "), text.out());
            assertTrue(text.out().contains("node 1 127.0.0.1:" + ports[1] + ": UNREACHABLE"), text.out());
            assertTrue(text.out().contains("1 of 2 node(s) did not answer"), text.out());
            final JsonNode json = kvctl(Map.of(), concat(base, "--json", "stats")).json();
            assertEquals(1, json.path("nodes").size());
            assertEquals(0, json.path("nodes").get(0).path("node").asInt());
            assertEquals(1, json.path("unreachable").get(0).path("node").asInt());
        }
    }

    private static String[] concat(final String[] base, final String... more)
    {
        final List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void pingTimesEveryNode() throws IOException
    {
        final Run text = kvctl("ping", "--count", "3");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().matches("(?s)node 0 127\\.0\\.0\\.1:\\d+: 3 GETs, rtt min [0-9.]+ us, avg [0-9.]+ us, " +
            "max [0-9.]+ us\nnode 1 .*"), text.out());
        final JsonNode json = kvctl("--json", "ping", "-c", "2").json();
        assertEquals(2, json.path("count").asInt());
        for (final JsonNode node : json.path("nodes"))
        {
            assertTrue(node.path("minMicros").asDouble() > 0);
            assertTrue(node.path("minMicros").asDouble() <= node.path("avgMicros").asDouble());
            assertTrue(node.path("avgMicros").asDouble() <= node.path("maxMicros").asDouble());
        }
        final ClusterMap map = NODES.get(0).clusterMap();
        for (final ClusterNode node : map.nodes())
        {
            assertEquals(node.id(), map.nodeForKeyHash(io.rdmakv.common.hash.KeyHash.hash(
                PingCommand.keyFor(map, node.id()))).id(), "the ping key routes to the node it pings");
        }
        assertEquals(KvCtl.USAGE, kvctl("ping", "--count", "0").code());
    }

    @Test
    void clusterPrintsTheMap() throws IOException
    {
        final Run text = kvctl("cluster");
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().startsWith("epoch 1, 64 partitions, 2 node(s)\nnode 0  127.0.0.1:"), text.out());
        assertTrue(text.out().contains("  32 partitions\nnode 1  "), text.out());
        final JsonNode json = kvctl("--json", "cluster").json();
        assertEquals(NODES.get(0).clusterMap(), ClusterMap.fromJson(JSON.writeValueAsString(json)));
    }

    @Test
    void drainIsRefusedByANodeOfAStaticCluster() throws IOException
    {
        final Run text = kvctl("drain", "1");
        assertEquals(KvCtl.FAILED, text.code(), text.out() + text.err());
        assertTrue(text.err().contains("refused the rebalance request: drain needs a ZooKeeper cluster") &&
            text.err().contains("whose nodes cannot be drained"), text.err());
        assertEquals(1, NODES.get(0).clusterMap().epoch(), "nothing changed");
    }

    @Test
    void rebalanceIsRefusedByANodeOfAStaticCluster() throws IOException
    {
        final Run text = kvctl("rebalance", "--move", "0:1", "--dry-run");
        assertEquals(KvCtl.FAILED, text.code(), text.out() + text.err());
        assertTrue(text.err().startsWith("kvctl: node 0 refused the rebalance request: rebalance needs a ZooKeeper " +
            "cluster"), text.err());
        final Run json = kvctl("--json", "rebalance", "--cancel", "7001");
        assertEquals(KvCtl.FAILED, json.code(), json.out() + json.err());
        assertEquals(KvCtl.FAILED, json.json().path("exitCode").asInt(), json.out());
        assertTrue(json.json().path("error").asText().contains("static cluster map"), json.out());
        assertEquals(1, NODES.get(0).clusterMap().epoch(), "nothing changed");
    }

    @Test
    void badUsageIsExitTwo()
    {
        assertEquals(KvCtl.USAGE, kvctl().code(), "no command");
        assertEquals(KvCtl.USAGE, kvctl("get").code(), "no key");
        assertEquals(KvCtl.USAGE, kvctl("put", "k").code(), "no value");
        assertEquals(KvCtl.USAGE, kvctl("frobnicate").code());
        assertEquals(KvCtl.USAGE, kvctl("get", "k", "--bogus").code());
        final Run transport = kvctl(Map.of(), "--transport", "carrier-pigeon", "get", "k");
        assertEquals(KvCtl.USAGE, transport.code());
        assertTrue(transport.err().contains("--transport must be one of"), transport.err());
        assertEquals(KvCtl.USAGE, kvctl(Map.of(), "--hosts", "127.0.0.1:notaport", "get", "k").code());
        final Run cm = kvctl(Map.of(), "--cm", "iwarp", "get", "k");
        assertEquals(KvCtl.USAGE, cm.code());
        assertTrue(cm.err().contains("unknown connection setup 'iwarp' (--cm): expected one of auto, rdmacm, exchange"),
            cm.err());
        final Run tcpCm = kvctl(Map.of(), "--cm", "rdmacm", "--transport", "tcp", "get", "k");
        assertEquals(KvCtl.USAGE, tcpCm.code());
        assertTrue(tcpCm.err().contains("rdmacm needs the ibverbs transport"), tcpCm.err());
        assertEquals(0, kvctl(Map.of(), "--help").code());
    }

    @Test
    void anUnreachableClusterIsExitThree() throws IOException
    {
        final int nobody = freePorts(1)[0];
        final Run run = kvctl(Map.of(), "--hosts", "127.0.0.1:" + nobody, "--transport", LocalCluster.TRANSPORT,
            "--timeout-ms", "2000", "get", "k");
        assertEquals(KvCtl.UNREACHABLE, run.code());
        assertTrue(run.err().startsWith("kvctl: no node answered"), run.err());
        assertEquals(KvCtl.UNREACHABLE, kvctl(Map.of(), "--json", "--hosts", "127.0.0.1:" + nobody, "--transport",
            LocalCluster.TRANSPORT, "ping").code());
    }

    @Test
    void theTokenComesFromTheFlagOrTheEnvironment()
    {
        final String[] args = {"--hosts", LocalCluster.address(guarded), "--transport", LocalCluster.TRANSPORT, "put", "k",
            "v"};
        final Run refused = kvctl(Map.of(), args);
        assertEquals(KvCtl.UNREACHABLE, refused.code());
        assertTrue(refused.err().contains("auth"), refused.err());
        assertEquals(0, kvctl(Map.of(KvCtl.TOKEN_ENV, "secret"), args).code());
        final List<String> withFlag = new ArrayList<>(List.of("--auth-token", "secret"));
        withFlag.addAll(List.of(args));
        assertEquals(0, kvctl(Map.of(KvCtl.TOKEN_ENV, "wrong"), withFlag.toArray(String[]::new)).code());
    }
}
