package io.rdmakv.systemtests.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Three ZooKeeper servers (the test class path's ZooKeeper, {@code QuorumPeerMain} with a generated zoo.cfg), each
 * a JVM in namespace {@code zk<i>} at 198.18.0.{@code 10+i}, port {@value #PORT}. Server i keeps its data
 * directory across restarts. A tick of 500 ms lets sessions as short as 1 s.
 */
final class ZkEnsemble implements AutoCloseable
{
    static final int SIZE = 3;
    static final int PORT = 2181;

    private final NetNamespaces net;
    private final Path dir;
    private final NsProcess[] servers = new NsProcess[SIZE];
    private final List<String> addresses = new ArrayList<>();

    ZkEnsemble(final NetNamespaces net, final Path dir)
    {
        this.net = net;
        this.dir = dir;
        for (int i = 0; i < SIZE; i++)
        {
            addresses.add(net.add(member(i), 10 + i));
        }
    }

    static String member(final int i)
    {
        return "zk" + i;
    }

    List<String> addresses()
    {
        return List.copyOf(addresses);
    }

    /** The connect string of all three servers. */
    String connectString()
    {
        return String.join(",", addresses.stream().map(a -> a + ":" + PORT).toList());
    }

    /** Starts every server and waits until each accepts connections. */
    void startAll() throws InterruptedException
    {
        for (int i = 0; i < SIZE; i++)
        {
            start(i);
        }
        for (int i = 0; i < SIZE; i++)
        {
            awaitListening(i, 60_000);
        }
    }

    /** Starts (or restarts) server {@code i} with its data kept. */
    void start(final int i)
    {
        if (servers[i] != null && servers[i].alive())
        {
            throw new IllegalStateException("ZooKeeper server " + i + " is running already");
        }
        final Path home = dir.resolve(member(i));
        final StringBuilder cfg = new StringBuilder("tickTime=500\ninitLimit=20\nsyncLimit=4\n")
            .append("dataDir=").append(home.resolve("data").toAbsolutePath()).append('\n')
            .append("clientPort=").append(PORT).append("\nclientPortAddress=").append(addresses.get(i)).append('\n')
            .append("admin.enableServer=false\nmaxClientCnxns=0\nminSessionTimeout=1000\n")
            .append("4lw.commands.whitelist=ruok,srvr\n");
        for (int s = 0; s < SIZE; s++)
        {
            cfg.append("server.").append(s + 1).append('=').append(addresses.get(s)).append(":2888:3888\n");
        }
        try
        {
            Files.createDirectories(home.resolve("data"));
            Files.writeString(home.resolve("data").resolve("myid"), Integer.toString(i + 1), StandardCharsets.US_ASCII);
            Files.writeString(home.resolve("zoo.cfg"), cfg);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot write ZooKeeper server " + i + "'s configuration", e);
        }
        servers[i] = NsProcess.start(member(i), member(i), dir, List.of("-Xmx128m"),
            "org.apache.zookeeper.server.quorum.QuorumPeerMain", List.of(home.resolve("zoo.cfg").toAbsolutePath().toString()));
    }

    /** SIGKILL of server {@code i}. */
    void kill(final int i) throws InterruptedException
    {
        servers[i].kill();
    }

    /** Waits until server {@code i} accepts TCP connections on its client port (from the control address). */
    void awaitListening(final int i, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline)
        {
            if (!servers[i].alive())
            {
                throw new IllegalStateException("ZooKeeper server " + i + " exited: " + servers[i].tail(3000));
            }
            try (Socket s = new Socket())
            {
                s.connect(new InetSocketAddress(addresses.get(i), PORT), 500);
                return;
            }
            catch (final IOException e)
            {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("ZooKeeper server " + i + " not listening after " + timeoutMs + " ms: " +
            servers[i].tail(3000));
    }

    @Override
    public void close() throws InterruptedException
    {
        for (final NsProcess s : servers)
        {
            if (s != null)
            {
                s.kill();
            }
        }
    }
}
