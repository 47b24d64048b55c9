package io.rdmakv.kvctl;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvException;
import io.rdmakv.server.KvServerCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node whose bootstrap listener cannot accept any more (its file descriptors exhausted by idle peers)
 * does not linger as a ready zombie: it says why in one line and exits non-zero, for its supervisor to
 * restart it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvServerFatalTest
{
    /** Low enough that a few hundred idle connections exhaust it, high enough for the JVM to start. */
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
    void descriptorExhaustionEndsTheNodeWithAReasonAndANonZeroExit() throws Exception
    {
        final int port = KvCtlTest.freePorts(1)[0];
        final ProcessBuilder pb = new ProcessBuilder("bash", "-c", "ulimit -n " + FILE_LIMIT + " && exec bash " +
            Launchers.root().resolve("bin/kvserver") + " --transport tcp --memory 16m --listen 127.0.0.1:" + port)
            .redirectErrorStream(true);
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
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the node exits: " + Files.readAllLines(log));
        final List<String> lines = Files.readAllLines(log);
        assertEquals(KvServerCommand.EXIT_FATAL, process.exitValue(), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: fatal: the bootstrap listener could not " +
            "accept connections for ") && l.contains("Too many open files")), lines.toString());
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
