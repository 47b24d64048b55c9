package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * deploy/local-cluster.sh starts a 3-node cluster on loopback that kvctl can use, reports it, and stops it
 * with every node exiting 0. Whatever happens, the nodes are stopped afterwards.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class LocalClusterScriptTest
{
    private static final long SCRIPT_TIMEOUT_S = 120;

    @TempDir
    Path dir;

    /** What one run of the script printed and returned. */
    record Run(int code, String out)
    {
    }

    private Run script(final String... args) throws IOException, InterruptedException
    {
        return script(java.util.Map.of(), args);
    }

    private Run script(final java.util.Map<String, String> extraEnv, final String... args)
        throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash",
            Launchers.root().resolve("deploy/local-cluster.sh").toString()));
        command.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Launchers.environment(pb.environment());
        pb.environment().putAll(extraEnv);
        final Path output = Files.createTempFile(dir, "script", ".out");
        pb.redirectOutput(output.toFile());
        final Process p = pb.start();
        if (!p.waitFor(SCRIPT_TIMEOUT_S, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("local-cluster.sh " + String.join(" ", args) + " ran over " + SCRIPT_TIMEOUT_S +
                " s:\n" + Files.readString(output));
        }
        return new Run(p.exitValue(), Files.readString(output));
    }

    @AfterEach
    void stopWhateverIsLeft() throws IOException, InterruptedException
    {
        final Path run = dir.resolve("run");
        try (var pids = Files.list(run))
        {
            if (pids.noneMatch(f -> f.getFileName().toString().endsWith(".pid")))
            {
                return;
            }
        }
        catch (final IOException e)
        {
            return;
        }
        script("stop", "--dir", run.toString(), "--timeout", "30");
        try (var pids = Files.list(run))
        {
            for (final Path f : pids.filter(f -> f.getFileName().toString().endsWith(".pid")).toList())
            {
                ProcessHandle.of(Long.parseLong(Files.readString(f).trim())).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    @Test
    void startsThreeNodesThatServeKvctlAndStopsThemCleanly() throws Exception
    {
        final int[] ports = KvCtlTest.freePorts(6);
        final int base = contiguous(ports);
        final Path run = dir.resolve("run");
        final Run started = script("start", "3", "--transport", "tcp", "--memory", "16m", "--base-port",
            String.valueOf(base), "--metrics-base-port", String.valueOf(base + 3), "--dir", run.toString(),
            "--timeout", "90");
        assertEquals(0, started.code(), started.out());
        final String hosts = "127.0.0.1:" + base + ",127.0.0.1:" + (base + 1) + ",127.0.0.1:" + (base + 2);
        assertTrue(started.out().contains("hosts: " + hosts), started.out());
        for (int i = 0; i < 3; i++)
        {
            assertTrue(Files.exists(run.resolve("node-" + i + ".yaml")));
            assertTrue(Files.exists(run.resolve("node-" + i + ".pid")));
            assertTrue(Files.readString(run.resolve("node-" + i + ".log")).contains("kvserver: ready"));
        }

        final Run status = script("status", "--dir", run.toString());
        assertEquals(0, status.code(), status.out());
        assertEquals(3, status.out().lines().filter(l -> l.matches("node \\d: ready, pid \\d+, listening on .*"))
            .count(), status.out());
        final Run again = script("start", "3", "--base-port", String.valueOf(base), "--dir", run.toString());
        assertEquals(1, again.code(), "a second start over a running cluster is refused");

        final Map<String, String> env = Map.of();
        final String[] common = {"--hosts", hosts, "--transport", "tcp"};
        assertEquals(0, KvCtlTest.kvctl(env, concat(common, "put", "launcher", "works")).code());
        assertEquals("works\n", KvCtlTest.kvctl(env, concat(common, "get", "launcher")).out());
        final JsonNode map = new ObjectMapper().readTree(KvCtlTest.kvctl(env, concat(common, "--json", "cluster"))
            .out());
        assertEquals(3, map.path("nodes").size());
        final KvCtlTest.Run ping = KvCtlTest.kvctl(env, concat(common, "ping", "-c", "2"));
        assertEquals(0, ping.code(), ping.err());
        assertEquals(3, ping.out().lines().count(), ping.out());

        final HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < 3; i++)
        {
            final HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" +
                (base + 3 + i) + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ready.statusCode(), "node " + i + " /ready");
        }

        final Run staticAdd = script("add", "1", "--dir", run.toString());
        assertEquals(2, staticAdd.code(), staticAdd.out());
        assertTrue(staticAdd.out().contains("needs a replicated cluster"), staticAdd.out());

        final Run stopped = script("stop", "--dir", run.toString(), "--timeout", "60");
        assertEquals(0, stopped.code(), stopped.out());
        for (int i = 0; i < 3; i++)
        {
            assertTrue(stopped.out().contains("node " + i + ": stopped (exit 0)"), stopped.out());
            assertEquals("0", Files.readString(run.resolve("node-" + i + ".exit")).trim());
            assertFalse(Files.exists(run.resolve("node-" + i + ".pid")));
            assertTrue(Files.readString(run.resolve("node-" + i + ".log")).contains("kvserver: stopped in "));
        }
        assertEquals(3, script("status", "--dir", run.toString()).code(), "no cluster any more");
        assertEquals(KvCtl.UNREACHABLE, KvCtlTest.kvctl(env, concat(common, "get", "launcher")).code());
    }

    @Test
    void aNodeThatCannotStartFailsTheStartAndStopsTheOthers() throws Exception
    {
        final int[] ports = KvCtlTest.freePorts(2);
        final int base = contiguous(ports);
        final Path run = dir.resolve("run");
        final Run started = script("start", "2", "--transport", "tcp", "--memory", "1k", "--base-port",
            String.valueOf(base), "--dir", run.toString(), "--timeout", "60");
        assertEquals(1, started.code(), started.out());
        assertTrue(started.out().contains("exited with 2 before it was ready"), started.out());
        assertTrue(started.out().contains("key 'memory'"), "the node's reason is shown: " + started.out());
        final Run usage = script("start", "many");
        assertEquals(2, usage.code(), usage.out());
    }

    /**
     * With --replicas the script runs the real ZooKeeper (bin/kvzk) first, locked down (a TLS-only client port
     * asking for client certificates, sessions without the digest credential closed), makes the credential and
     * the certificates, and gives the nodes its address and those files instead of a map file; the nodes form a
     * replicated cluster that serves a PUT and a GET; stop stops the nodes, then ZooKeeper.
     */
    @Test
    void withReplicasALockedDownZooKeeperStartsFirstTheNodesServeAndItStopsLast() throws Exception
    {
        final int base = contiguous(new int[5]);
        final int zk = base + 4;
        final Path run = dir.resolve("run");
        final Run started = script("start", "3", "--replicas", "2", "--transport", "tcp", "--memory", "16m",
            "--base-port", String.valueOf(base), "--zk-port", String.valueOf(zk), "--dir", run.toString(),
            "--timeout", "90");
        assertEquals(0, started.code(), started.out());
        assertTrue(started.out().contains("zookeeper: 127.0.0.1:" + zk + ", cluster 'local', 2 replica(s)"),
            started.out());
        assertTrue(started.out().contains("TLS only"), started.out());
        final String config = Files.readString(run.resolve("node-1.yaml"));
        assertTrue(config.contains("zookeeper: 127.0.0.1:" + zk + "\ncluster-name: local\nreplicas: 2\n" +
            "zk-auth-file: " + run.resolve("zk-auth") + "\nzk-tls-ca: " + run.resolve("zk-tls/ca.pem") +
            "\nzk-tls-cert: " + run.resolve("zk-tls/node.pem") + "\nzk-tls-key: " + run.resolve("zk-tls/node.key") +
            "\n") && !config.contains("cluster:"), config);
        assertFalse(Files.exists(run.resolve("cluster.json")), "the map lives in ZooKeeper");
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(run.resolve("zk-auth"))));
        final String credential = Files.readString(run.resolve("zk-auth")).trim();
        assertTrue(credential.matches("rdmakv:[0-9a-f]{64}"), "a random credential");
        final String zkConfig = Files.readString(run.resolve("zookeeper.cfg"));
        assertTrue(zkConfig.contains("secureClientPort=" + zk) && !zkConfig.contains("\nclientPort=") &&
            zkConfig.contains("enforce.auth.enabled=true") && zkConfig.contains("enforce.auth.schemes=digest") &&
            zkConfig.contains("ssl.clientAuth=need"), zkConfig);
        String plain;
        try
        {
            plain = srvr(zk);
        }
        catch (final java.net.SocketException | java.net.SocketTimeoutException e)
        {
            plain = ""; // reset, or no answer: it waits for a TLS handshake
        }
        assertEquals("", plain, "no plaintext on ZooKeeper's port " + zk);
        for (int i = 0; i < 3; i++)
        {
            final String log = Files.readString(run.resolve("node-" + i + ".log"));
            assertTrue(log.contains("authenticating as digest user 'rdmakv'") && !log.contains("no credentials") &&
                !log.contains(credential.substring("rdmakv:".length())), "node " + i + ": " + log);
            final long pid = Long.parseLong(Files.readString(run.resolve("node-" + i + ".pid")).trim());
            final String commandLine = Files.readString(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' ');
            assertTrue(commandLine.contains("--config"), commandLine);
            assertFalse(commandLine.contains(credential.substring("rdmakv:".length())),
                "the secret is not on node " + i + "'s command line (ps): " + commandLine);
        }

        final String hosts = "127.0.0.1:" + base + ",127.0.0.1:" + (base + 1) + ",127.0.0.1:" + (base + 2);
        final String[] common = {"--hosts", hosts, "--transport", "tcp"};
        final KvCtlTest.Run put = KvCtlTest.kvctl(Map.of(), concat(common, "put", "locked", "down"));
        assertEquals(0, put.code(), put.err());
        assertEquals("down\n", KvCtlTest.kvctl(Map.of(), concat(common, "get", "locked")).out());
        final JsonNode map = new ObjectMapper().readTree(KvCtlTest.kvctl(Map.of(), concat(common, "--json",
            "cluster")).out());
        assertEquals(3, map.path("nodes").size(), map.toString());

        final Run status = script("status", "--dir", run.toString());
        assertEquals(0, status.code(), status.out());
        assertTrue(status.out().startsWith("zookeeper: running, pid "), status.out());

        // add: one more node, with the cluster's settings, at the next id and port; it joins as a spare
        final Run added = script("add", "1", "--dir", run.toString(), "--timeout", "90");
        assertEquals(0, added.code(), added.out());
        assertTrue(added.out().contains("added node(s) 3") && added.out().contains("hosts: " + hosts + ",127.0.0.1:" +
            (base + 3)), added.out());
        assertTrue(Files.readString(run.resolve("node-3.yaml")).contains("listen: 127.0.0.1:" + (base + 3) +
            "\nnode-id: 3\nzookeeper: 127.0.0.1:" + zk + "\ncluster-name: local\nreplicas: 2\n"));
        final String grown = awaitClusterText(common, "node 3  127.0.0.1:" + (base + 3) + "  spare");
        assertTrue(grown.contains("4 node(s)") && grown.matches("(?s)epoch \\d+ \\(fence epoch \\d+\\), 4096 partitions.*"),
            "a spare joining fences nobody, and a new cluster has 4096 partitions: " + grown);
        assertEquals("down\n", KvCtlTest.kvctl(Map.of(), concat(common, "get", "locked")).out());
        assertEquals(2, script("add", "1", "--dir", run.toString(), "--memory", "1g").code(),
            "add takes the cluster's settings, not its own");
        // remove: the spare stops cleanly and leaves the map
        final Run removed = script("remove", "3", "--dir", run.toString(), "--timeout", "30");
        assertEquals(0, removed.code(), removed.out());
        assertTrue(removed.out().contains("node 3: removed (exit 0)"), removed.out());
        assertFalse(Files.exists(run.resolve("node-3.pid")));
        awaitClusterText(common, "3 node(s)");
        assertEquals(2, script("remove", "7", "--dir", run.toString()).code(), "no such node");

        final Run stopped = script("stop", "--dir", run.toString(), "--timeout", "30");
        assertEquals(0, stopped.code(), stopped.out());
        final List<String> lines = stopped.out().lines().toList();
        assertEquals("zookeeper: stopped", lines.getLast(), "ZooKeeper last: " + stopped.out());
        assertTrue(lines.contains("node 0: stopped (exit 0)") && lines.contains("node 2: stopped (exit 0)"),
            stopped.out());
        assertThrows(IOException.class, () -> srvr(zk), "ZooKeeper is gone");
        assertEquals(2, script("start", "2", "--replicas", "6").code());
    }

    /** {@code kvctl cluster}'s text once it contains {@code expected} (the map changes within seconds). */
    private static String awaitClusterText(final String[] common, final String expected) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String text = "";
        while (System.nanoTime() < deadline)
        {
            text = KvCtlTest.kvctl(Map.of(), concat(common, "cluster")).out();
            if (text.contains(expected))
            {
                return text;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("kvctl cluster never showed '" + expected + "':\n" + text);
    }

    /** ZooKeeper's 'srvr' four-letter command on loopback port {@code port}. */
    private static String srvr(final int port) throws IOException
    {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port))
        {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("srvr".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    private static String[] concat(final String[] first, final String... rest)
    {
        final List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(rest));
        return all.toArray(String[]::new);
    }

    /** A base port whose next {@code ports.length} ports were free just now (best effort: tries a few bases). */
    private static int contiguous(final int[] ports) throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final int base = 20_000 + (int)(Math.random() * 30_000);
            boolean free = true;
            for (int i = 0; i < ports.length && free; i++)
            {
                try (java.net.ServerSocket s = new java.net.ServerSocket())
                {
                    s.setReuseAddress(false);
                    s.bind(new java.net.InetSocketAddress("127.0.0.1", base + i));
                }
                catch (final IOException e)
                {
                    free = false;
                }
            }
            if (free)
            {
                return base;
            }
        }
        throw new IOException("no run of " + ports.length + " free ports");
    }
}
