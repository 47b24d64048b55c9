package io.rdmakv.systemtests.nemesis;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.KvServerCommand;
import io.rdmakv.systemtests.LocalCluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Three kvserver nodes, node i a JVM in namespace {@code n<i>} listening on 198.18.0.{@code 20+i}:{@value #PORT},
 * joined through the three-server ZooKeeper ensemble (cluster {@value #CLUSTER}) with groups of {@value #REPLICAS}
 * and a {@value #SESSION_TIMEOUT_MS} ms session. Maps are read from the control address. For a run with the
 * {@link Fault#MOVE} phase, {@value #EXTRA} more nodes have namespaces and are started by {@link #startExtra} (the
 * move phase's setup), and the cluster is created with {@value #MOVE_PARTITIONS} partitions; nodes not started are
 * left out of seeds, maps and the sync check.
 */
final class NemesisNodes implements AutoCloseable
{
    static final int COUNT = 3;
    static final int EXTRA = 2;
    static final int REPLICAS = 2;
    static final int PORT = 7000;
    static final int SESSION_TIMEOUT_MS = 2000;
    static final String CLUSTER = "nemesis";
    static final int MOVE_PARTITIONS = 16;

    private final Path dir;
    private final String zookeeper;
    private final boolean moves;
    private final List<String> addresses = new ArrayList<>();
    private final NsProcess[] nodes;
    private final int[] starts;

    /** With {@code moves}, room for {@value #EXTRA} more nodes and {@value #MOVE_PARTITIONS} partitions. */
    NemesisNodes(final NetNamespaces net, final Path dir, final String zookeeper, final boolean moves)
    {
        this.dir = dir;
        this.zookeeper = zookeeper;
        this.moves = moves;
        final int count = moves ? COUNT + EXTRA : COUNT;
        nodes = new NsProcess[count];
        starts = new int[count];
        for (int i = 0; i < count; i++)
        {
            addresses.add(net.add(member(i), 20 + i));
        }
    }

    static String member(final int i)
    {
        return "n" + i;
    }

    List<String> addresses()
    {
        return List.copyOf(addresses);
    }

    /** The started nodes' addresses as client seeds. */
    String seeds()
    {
        return String.join(",", started().stream().map(i -> addresses.get(i) + ":" + PORT).toList());
    }

    /** The ids of the nodes started so far (alive or not). */
    List<Integer> started()
    {
        final List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++)
        {
            if (nodes[i] != null)
            {
                ids.add(i);
            }
        }
        return ids;
    }

    /** A client configuration for {@code seeds} whose tcp endpoint listens on {@code bindHost} (its namespace's address). */
    static KvClientConfig clientConfig(final String seeds, final String bindHost, final Duration opTimeout)
    {
        final KvClientConfig c = KvClientConfig.of(seeds).withTransport(LocalCluster.TRANSPORT).withOpTimeout(opTimeout);
        return new KvClientConfig(c.seeds(), c.authToken(), c.transport(), bindHost, c.opTimeout(), c.connectTimeout(),
            c.asyncThreads(), c.metrics(), c.waitStrategy(), c.cacheEntries(), c.tls());
    }

    void startAll()
    {
        for (int i = 0; i < COUNT; i++)
        {
            start(i);
        }
    }

    /** Starts the {@value #EXTRA} extra nodes of a run with moves, unless started already; whether it started them. */
    boolean startExtra()
    {
        if (!moves)
        {
            throw new IllegalStateException("this run has no extra nodes (no move phase)");
        }
        boolean any = false;
        for (int i = COUNT; i < nodes.length; i++)
        {
            if (nodes[i] == null)
            {
                start(i);
                any = true;
            }
        }
        return any;
    }

    /** Starts (or restarts, empty) node {@code i}. */
    void start(final int i)
    {
        if (nodes[i] != null && nodes[i].alive())
        {
            throw new IllegalStateException("node " + i + " is running already");
        }
        starts[i]++;
        final List<String> args = new ArrayList<>(List.of("--transport", LocalCluster.TRANSPORT,
            "--cm", LocalCluster.CM.label(), "--memory", "32m",
            "--listen", addresses.get(i) + ":" + PORT, "--node-id", Integer.toString(i), "--zookeeper", zookeeper,
            "--cluster-name", CLUSTER, "--replicas", Integer.toString(REPLICAS),
            "--zk-session-timeout-ms", Integer.toString(SESSION_TIMEOUT_MS), "--metrics-port", "0", "--insecure"));
        if (moves)
        {
            args.addAll(List.of("--partitions", Integer.toString(MOVE_PARTITIONS)));
        }
        nodes[i] = NsProcess.start(member(i), member(i) + "-" + starts[i], dir,
            List.of("-Xmx192m", "-Djava.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %5$s%6$s%n"),
            KvServerCommand.class.getName(), args);
    }

    NsProcess process(final int i)
    {
        return nodes[i];
    }

    /** SIGKILL of node {@code i}. */
    void kill(final int i) throws InterruptedException
    {
        nodes[i].kill();
    }

    /** SIGTERM of node {@code i}, waiting for it to leave and exit. */
    void terminate(final int i) throws InterruptedException
    {
        nodes[i].signal("TERM");
        if (!nodes[i].awaitExit(30))
        {
            throw new IllegalStateException("node " + i + " did not exit within 30 s of SIGTERM: " + nodes[i].tail(2000));
        }
    }

    /** The map node {@code i} hands out, or null when it does not answer. */
    ClusterMap mapOf(final int i)
    {
        final KvClientConfig config = clientConfig(addresses.get(i) + ":" + PORT, NetNamespaces.CONTROL_ADDRESS,
            Duration.ofSeconds(2)).withConnectTimeout(Duration.ofSeconds(2));
        try (KvClient probe = KvClient.connect(config))
        {
            return probe.clusterMap();
        }
        catch (final RuntimeException e)
        {
            return null;
        }
    }

    /** The highest-epoch map any node hands out, or null when none answers. */
    ClusterMap newestMap()
    {
        ClusterMap newest = null;
        for (final int i : started())
        {
            final ClusterMap map = mapOf(i);
            if (map != null && (newest == null || map.epoch() > newest.epoch()))
            {
                newest = map;
            }
        }
        return newest;
    }

    /**
     * Waits until every started node hands out the same map and each of its groups has {@value #REPLICAS} members,
     * none copying and none sealed; returns that map, or throws after {@code timeout} with the last maps seen.
     */
    ClusterMap awaitInSync(final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline)
        {
            for (final int i : started())
            {
                if (!nodes[i].alive())
                {
                    throw new IllegalStateException("node " + i + " exited: " + nodes[i].tail(3000));
                }
            }
            final List<ClusterMap> maps = new ArrayList<>();
            for (final int i : started())
            {
                maps.add(mapOf(i));
            }
            last = maps.stream().map(m -> m == null ? "none" : "e" + m.epoch() + " " + m.groups()).toList().toString();
            final ClusterMap first = maps.getFirst();
            if (first != null && maps.stream().allMatch(m -> m != null && m.epoch() == first.epoch())
                && fullyReplicated(first))
            {
                return first;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("the group is not back in sync after " + timeout + "; maps per node: " + last);
    }

    /** Waits until the newest map no longer has node {@code gone} as a member of any group; returns it. */
    ClusterMap awaitWithout(final int gone, final Duration timeout) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        ClusterMap map = null;
        while (System.nanoTime() < deadline)
        {
            map = newestMap();
            if (map != null && !map.isSimple() && map.groups().stream().noneMatch(g -> g.isMember(gone)))
            {
                return map;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("node " + gone + " still in the group after " + timeout + ": " + map);
    }

    static boolean fullyReplicated(final ClusterMap map)
    {
        if (map.isSimple())
        {
            return false;
        }
        for (final ReplicaGroup g : map.groups())
        {
            if (g.memberCount() != REPLICAS || g.copyingCount() != 0 || g.sealed())
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws InterruptedException
    {
        for (final NsProcess n : nodes)
        {
            if (n != null)
            {
                n.kill();
            }
        }
    }
}
