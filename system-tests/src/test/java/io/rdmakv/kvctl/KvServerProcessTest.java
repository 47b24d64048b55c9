package io.rdmakv.kvctl;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvConnectionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/kvserver as a child process: it says it is ready, serves a client, and on SIGTERM (what
 * {@link Process#destroy} sends on Linux) tells the client, exits 0 within a bound, and the client's next
 * operation fails with {@link KvConnectionException}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvServerProcessTest
{
    /** Signal to exit: closing sessions (a short SHUTDOWN wait), deregistering, JVM exit. */
    private static final long SHUTDOWN_BOUND_MS = 5_000;

    private Process process;

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() throws InterruptedException
    {
        if (process != null && process.isAlive())
        {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void sigtermWithAClientConnectedStopsCleanlyAndTheClientNotices() throws Exception
    {
        final int[] ports = KvCtlTest.freePorts(2);
        final ProcessBuilder pb = new ProcessBuilder("bash", Launchers.root().resolve("bin/kvserver").toString(),
            "--transport", "tcp", "--memory", "16m", "--listen", "127.0.0.1:" + ports[0], "--metrics-host",
            "127.0.0.1", "--metrics-port", String.valueOf(ports[1])).redirectErrorStream(true);
        Launchers.environment(pb.environment());
        final Path log = dir.resolve("kvserver.log");
        pb.redirectOutput(log.toFile());
        process = pb.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> lines = Files.readAllLines(log);
        while (!lines.contains("kvserver: ready"))
        {
            assertTrue(process.isAlive() && System.nanoTime() < deadline, "kvserver said it was ready: " + lines);
            Thread.sleep(50);
            lines = Files.readAllLines(log);
        }
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: self-check: transport tcp")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: self-check: memlock")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: self-check: huge pages")), lines.toString());

        final HttpClient http = HttpClient.newHttpClient();
        final HttpResponse<String> readiness = http.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + ports[1] + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, readiness.statusCode());

        try (KvClient client = KvClient.connect(KvClientConfig.of("127.0.0.1:" + ports[0]).withTransport("tcp")
            .withOpTimeout(Duration.ofSeconds(10))))
        {
            final byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            client.put(key, key);
            assertArrayEquals(key, client.get(key));

            final long t0 = System.nanoTime();
            process.destroy();
            assertTrue(process.waitFor(SHUTDOWN_BOUND_MS, TimeUnit.MILLISECONDS),
                "kvserver exits within " + SHUTDOWN_BOUND_MS + " ms of SIGTERM: " + lines);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(0, process.exitValue(), "exit code after SIGTERM: " + lines);
            lines = Files.readAllLines(log);
            assertTrue(lines.contains("kvserver: shutting down"), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("kvserver: stopped in ")), lines.toString());
            assertTrue(tookMs < SHUTDOWN_BOUND_MS, tookMs + " ms");

            final KvConnectionException e = assertThrows(KvConnectionException.class, () -> client.get(key));
            assertTrue(e.getMessage().contains("127.0.0.1:" + ports[0]), e.getMessage());
        }
    }
}
