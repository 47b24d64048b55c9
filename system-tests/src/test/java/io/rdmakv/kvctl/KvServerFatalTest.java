package io.rdmakv.kvctl;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvException;
import io.rdmakv.server.KvServerCommand;
import io.rdmakv.server.config.ConnectionDefaults;
import io.rdmakv.verbs.util.AcceptFailures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flood of idle peers does not end a node: over its connection limit (derived from its descriptor limit)
 * it closes new connections at accept and serves its clients. A node whose bootstrap listener cannot accept
 * any more all the same (descriptors exhausted past a limit set too high) does not linger as a ready zombie:
 * it says why in one line and exits non-zero, for its supervisor to restart it; so does one out of memory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvServerFatalTest
{
    /**
     * Low enough that a few hundred idle connections would exhaust it, high enough for the JVM to start (and
     * for a default connection limit of (200 - 128) / 3 = 24).
     */
    private static final int FILE_LIMIT = 200;
    private static final int PEERS = 400;

    @TempDir
    Path dir;

    private Process process;
    private final List<Socket> peers = new ArrayList<>();

    @AfterEach
    void cleanUp() throws IOException
    {
        for (final Socket s : peers)
        {
            s.close();
        }
        if (process != null)
        {
            process.destroyForcibly();
        }
    }

    @Test
    void aFloodOfIdlePeersIsRefusedOverTheConnectionLimitWhileTheNodeServesItsClients() throws Exception
    {
        final int port = KvCtlTest.freePorts(1)[0];
        final Path log = startWithFileLimit(port);
        assertTrue(Files.readAllLines(log).stream().anyMatch(l -> l.contains("at most " +
            ConnectionDefaults.defaultFor(FILE_LIMIT) + " connections (from the descriptor limit " + FILE_LIMIT + ")")),
            "the effective limit is logged: " + Files.readAllLines(log));
        final byte[] key = "before-the-flood".getBytes(StandardCharsets.UTF_8);
        try (KvClient client = connect(port))
        {
            client.put(key, new byte[] {1});
            final long flooding = System.nanoTime();
            flood(port);
            if (System.nanoTime() - flooding < TimeUnit.SECONDS.toNanos(5))
            {
                // the flood's first connections hold every slot until their HELLO deadline (10 s)
                final KvException refused = assertThrows(KvException.class, () -> connect(port).close(),
                    "a new client is refused while idle peers hold every slot");
                assertTrue(refused.getMessage().contains("kvserver --max-connections"), refused.getMessage());
            }
            Thread.sleep(AcceptFailures.DEFAULT_FATAL_AFTER_NANOS / 1_000_000 + 1_000); // past the fatal time
            assertTrue(process.isAlive(), "the node lives: " + Files.readAllLines(log));
            assertArrayEquals(new byte[] {1}, client.get(key), "the existing client is served during the flood");
            client.put(key, new byte[] {2});
            assertArrayEquals(new byte[] {2}, client.get(key));
            for (final Socket s : peers)
            {
                s.close();
            }
            peers.clear();
            try (KvClient later = connectWithin(port, Duration.ofSeconds(30)))
            {
                assertArrayEquals(new byte[] {2}, later.get(key), "a new client after the flood reads the key");
            }
        }
        assertTrue(process.isAlive(), "the node lives: " + Files.readAllLines(log));
        final List<String> lines = Files.readAllLines(log);
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("kvserver: fatal")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.contains("bootstrap connections (handshakes and sessions) open, " +
            "the most this node holds (--max-connections)")), "the refusals are logged: " + lines);
    }

    /**
     * With a connection limit above what its descriptors allow, idle peers exhaust them and accept fails for
     * good: the fatal path for accept failures that last is still there, and says why.
     */
    @Test
    void descriptorExhaustionPastTheLimitEndsTheNodeWithAReasonAndANonZeroExit() throws Exception
    {
        final int port = KvCtlTest.freePorts(1)[0];
        final Path log = startWithFileLimit(port, "--max-connections", "1000");
        assertTrue(Files.readAllLines(log).stream().anyMatch(l -> l.startsWith("kvserver: warning: " +
            "--max-connections 1000 is above the ")), "warned: " + Files.readAllLines(log));
        flood(port);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the node exits: " + Files.readAllLines(log));
        final List<String> lines = Files.readAllLines(log);
        assertEquals(KvServerCommand.EXIT_FATAL, process.exitValue(), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: fatal: the bootstrap listener could not " +
            "accept connections for ") && l.contains("Too many open files")), lines.toString());
    }

    /** Starts kvserver under {@code ulimit -n} {@value #FILE_LIMIT} and waits for it to be ready; its log. */
    private Path startWithFileLimit(final int port, final String... extra) throws Exception
    {
        final ProcessBuilder pb = new ProcessBuilder("bash", "-c", "ulimit -n " + FILE_LIMIT + " && exec bash " +
            Launchers.root().resolve("bin/kvserver") + " --transport tcp --memory 16m --listen 127.0.0.1:" + port +
            " " + String.join(" ", extra)).redirectErrorStream(true);
        Launchers.environment(pb.environment());
        final Path log = dir.resolve("kvserver.log");
        pb.redirectOutput(log.toFile());
        process = pb.start();
        final long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readAllLines(log).contains("kvserver: ready"))
        {
            assertTrue(process.isAlive() && System.nanoTime() < ready, "kvserver started: " + Files.readAllLines(log));
            Thread.sleep(50);
        }
        return log;
    }

    /** Opens up to {@value #PEERS} idle connections (fewer once the node stops taking them or exits). */
    private void flood(final int port) throws IOException
    {
        int timeouts = 0;
        for (int i = 0; i < PEERS && timeouts < 3 && process.isAlive(); i++)
        {
            final Socket s = new Socket();
            peers.add(s);
            try
            {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                timeouts = 0;
            }
            catch (final SocketTimeoutException e)
            {
                timeouts++; // the node accepts no more and its backlog is full (or the machine is busy)
            }
        }
    }

    private static KvClient connect(final int port)
    {
        return KvClient.connect(KvClientConfig.of("127.0.0.1:" + port).withTransport("tcp")
            .withOpTimeout(Duration.ofSeconds(10)).withConnectTimeout(Duration.ofSeconds(10)));
    }

    /** A new client, retried while the node's slots are still held by connections it has not seen end yet. */
    private static KvClient connectWithin(final int port, final Duration within) throws InterruptedException
    {
        final long deadline = System.nanoTime() + within.toNanos();
        while (true)
        {
            try
            {
                return connect(port);
            }
            catch (final KvException e)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    void directMemoryExhaustionEndsTheNodeWithAReasonAndANonZeroExit() throws Exception
    {
        final int port = KvCtlTest.freePorts(1)[0];
        final ProcessBuilder pb = new ProcessBuilder("bash", Launchers.root().resolve("bin/kvserver").toString(),
            "--transport", "tcp", "--memory", "16m", "--listen", "127.0.0.1:" + port).redirectErrorStream(true);
        Launchers.environment(pb.environment());
        // room for a couple of sessions' software-NIC buffers (4 x 256 KiB each), not for a dozen
        pb.environment().put("RDMAKV_JAVA_OPTS", Launchers.CHILD_JVM_OPTS + " -XX:MaxDirectMemorySize=3m");
        final Path log = dir.resolve("kvserver.log");
        pb.redirectOutput(log.toFile());
        process = pb.start();
        final long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readAllLines(log).contains("kvserver: ready"))
        {
            assertTrue(process.isAlive() && System.nanoTime() < ready, "kvserver started: " + Files.readAllLines(log));
            Thread.sleep(50);
        }
        final List<KvClient> clients = new ArrayList<>();
        try
        {
            for (int i = 0; i < 12 && process.isAlive(); i++)
            {
                try
                {
                    final KvClient client = KvClient.connect(KvClientConfig.of("127.0.0.1:" + port)
                        .withTransport("tcp").withOpTimeout(Duration.ofSeconds(5)).withConnectTimeout(Duration.ofSeconds(5)));
                    clients.add(client);
                    client.get(new byte[] {1});
                }
                catch (final KvException e)
                {
                    // the node failed this session: it should now be on its way out
                }
            }
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the node exits: " + Files.readAllLines(log));
        }
        finally
        {
            clients.forEach(KvClient::close);
        }
        final List<String> lines = Files.readAllLines(log);
        assertEquals(KvServerCommand.EXIT_FATAL, process.exitValue(), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: fatal: ") && l.contains("OutOfMemoryError")),
            lines.toString());
    }
}
