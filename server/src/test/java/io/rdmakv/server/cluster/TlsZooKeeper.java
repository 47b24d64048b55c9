package io.rdmakv.server.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A ZooKeeper server (ZooKeeperServerMain in a child JVM on the test class path: its ssl settings are JVM-wide
 * system properties, kept out of the test's JVM) with only a TLS client port on loopback, its certificates made by
 * openssl: a CA, the server's certificate for 127.0.0.1, a client certificate, and a second CA that signed nothing
 * of ZooKeeper's. It closes sessions that have not authenticated with a digest credential (enforce.auth).
 */
final class TlsZooKeeper implements AutoCloseable
{
    final Path dir;
    final Path ca;
    final Path otherCa;
    final Path clientCert;
    final Path clientKey;
    final int port;
    private final Process process;

    TlsZooKeeper(final Path dir) throws IOException, InterruptedException
    {
        this.dir = dir;
        ca = dir.resolve("ca.pem");
        otherCa = dir.resolve("other-ca.pem");
        clientCert = dir.resolve("client.pem");
        clientKey = dir.resolve("client.key");
        makeCa("ca", "rdmakv test CA");
        makeCa("other-ca", "someone else's CA");
        sign("server", "zookeeper", "subjectAltName=IP:127.0.0.1,DNS:localhost");
        sign("client", "rdmakv node", "extendedKeyUsage=clientAuth");
        final Path keyStore = dir.resolve("server-keystore.pem");
        Files.writeString(keyStore, Files.readString(dir.resolve("server.key")) +
            Files.readString(dir.resolve("server.pem")));
        port = freePort();
        final Path cfg = dir.resolve("zoo.cfg");
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(cfg, String.join("\n",
            "tickTime=500",
            "dataDir=" + dir.resolve("data"),
            "secureClientPortAddress=127.0.0.1",
            "secureClientPort=" + port,
            "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
            "ssl.keyStore.location=" + keyStore,
            "ssl.keyStore.type=PEM",
            "ssl.trustStore.location=" + ca,
            "ssl.trustStore.type=PEM",
            "ssl.clientAuth=need",
            "ssl.clientHostnameVerification=false",
            "enforce.auth.enabled=true",
            "enforce.auth.schemes=digest",
            "admin.enableServer=false",
            "maxSessionTimeout=60000", ""));
        process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
            System.getProperty("java.class.path"), "org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString())
            .redirectErrorStream(true).redirectOutput(dir.resolve("zookeeper.log").toFile()).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!listening())
        {
            if (!process.isAlive() || System.nanoTime() - deadline > 0)
            {
                close();
                throw new IOException("ZooKeeper with TLS did not listen on " + port + ": " +
                    Files.readString(dir.resolve("zookeeper.log")));
            }
            Thread.sleep(100);
        }
    }

    String connectString()
    {
        return "127.0.0.1:" + port;
    }

    private boolean listening()
    {
        try (Socket s = new Socket())
        {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    private void makeCa(final String name, final String cn) throws IOException, InterruptedException
    {
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", name + ".key", "-out", name + ".pem", "-days", "2", "-subj", "/CN=" + cn,
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    }

    private void sign(final String name, final String cn, final String extension)
        throws IOException, InterruptedException
    {
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", name + ".key",
            "-out", name + ".csr", "-subj", "/CN=" + cn);
        Files.writeString(dir.resolve(name + ".ext"), extension + "\n");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext");
    }

    private void openssl(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        final String output = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    @Override
    public void close()
    {
        process.destroy();
        try
        {
            if (!process.waitFor(10, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
