package io.rdmakv.kvctl;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/kvserver in protected mode: on all addresses without authentication it refuses to start (exit 2, one
 * line naming both ways out); with {@code --insecure} it starts and warns; its metrics endpoint listens on
 * loopback unless told otherwise.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvServerProtectedModeProcessTest
{
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

    private Path start(final String... args) throws IOException
    {
        final List<String> command = new java.util.ArrayList<>(List.of("bash",
            Launchers.root().resolve("bin/kvserver").toString(), "--transport", "tcp", "--memory", "16m"));
        command.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Launchers.environment(pb.environment());
        final Path log = dir.resolve("kvserver.log");
        pb.redirectOutput(log.toFile());
        process = pb.start();
        return log;
    }

    @Test
    void allAddressesWithoutAuthenticationIsRefusedWithExitTwo() throws Exception
    {
        final int port = KvCtlTest.freePorts(1)[0];
        final Path log = start("--listen", "0.0.0.0:" + port);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kvserver exits");
        assertEquals(2, process.exitValue(), Files.readString(log));
        assertEquals(List.of("kvserver: refusing to listen on 0.0.0.0 with authentication off (anyone who reaches the " +
            "port could read and write every key): set an auth token (--auth-token or $RDMAKV_AUTH_TOKEN) or " +
            "require client certificates (--tls-client-ca), or start with --insecure to accept that"),
            Files.readAllLines(log).stream().filter(l -> l.startsWith("kvserver:")).toList());
    }

    @Test
    void insecureStartsWithAWarningAndMetricsStayOnLoopback() throws Exception
    {
        final int[] ports = KvCtlTest.freePorts(2);
        final Path log = start("--listen", "0.0.0.0:" + ports[0], "--insecure", "--metrics-port",
            String.valueOf(ports[1]));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> lines = Files.readAllLines(log);
        while (!lines.contains("kvserver: ready"))
        {
            assertTrue(process.isAlive() && System.nanoTime() < deadline, "kvserver said it was ready: " + lines);
            Thread.sleep(50);
            lines = Files.readAllLines(log);
        }
        assertTrue(lines.contains("kvserver: warning: authentication is off: any client that reaches 0.0.0.0:" +
            ports[0] + " may open a session and read and write every key (--insecure); set --auth-token or " +
            "--tls-client-ca to require one"), lines.toString());
        assertTrue(lines.contains("kvserver: metrics on http://127.0.0.1:" + ports[1] +
            "/metrics (readiness /ready, liveness /live)"), lines.toString());
        final HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + ports[1] + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ready.statusCode());
        final Optional<InetAddress> outside = nonLoopbackAddress();
        if (outside.isPresent())
        {
            try (Socket bootstrap = new Socket())
            {
                bootstrap.connect(new InetSocketAddress(outside.get(), ports[0]), 5000); // --listen 0.0.0.0: reachable
            }
            assertThrows(ConnectException.class, () ->
            {
                try (Socket metrics = new Socket())
                {
                    metrics.connect(new InetSocketAddress(outside.get(), ports[1]), 5000);
                }
            }, "the metrics endpoint is not reachable at " + outside.get());
        }
    }

    private static Optional<InetAddress> nonLoopbackAddress() throws SocketException
    {
        return NetworkInterface.networkInterfaces().filter(i -> !isLoopback(i))
            .flatMap(NetworkInterface::inetAddresses).filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
            .findFirst();
    }

    private static boolean isLoopback(final NetworkInterface i)
    {
        try
        {
            return i.isLoopback() || !i.isUp();
        }
        catch (final SocketException e)
        {
            return true;
        }
    }
}
