package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.KvServerCommand;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.faults.ChildJvm;
import io.rdmakv.systemtests.faults.LeaseProxy;
import org.apache.curator.test.TestingServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real ZooKeeper server (curator-test's {@code TestingServer}) and kvserver nodes as child JVMs that join it
 * ({@code --zookeeper}), so that a test can kill one with SIGKILL. Nodes are numbered from 0; node i listens on
 * {@code ports[i]} at {@link LocalCluster#nodeHost} (127.0.0.1 unless the test run puts nodes elsewhere) and opens
 * {@link LocalCluster#nodeDevice}.
 */
final class ZkNodes implements AutoCloseable
{
    /**
     * The nodes' ZooKeeper session timeout: {@code -Drdmakv.test.zkSessionMs}, 2000 ms by default (an emulated
     * VM, whose JVMs run many times slower, wants more, or sessions expire under load alone).
     */
    static final int SESSION_TIMEOUT_MS = Integer.getInteger("rdmakv.test.zkSessionMs", 2000);
    /**
     * How many times slower than a real machine this one is taken to be: the per-operation timeout over its
     * default of 10 s, at least 1 (the Soft-RoCE VM, emulated, sets 60 s: 6). Waits for maps and the map
     * probes' connect timeout are stretched by it.
     */
    static final long SLOWNESS = Math.max(1, LocalCluster.OP_TIMEOUT.toMillis() / 10_000);
    /** Node log lines with the wall-clock time to the millisecond (to line them up with a test's timeline). */
    static final String LOG_FORMAT = "-Djava.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %5$s%6$s%n";

    final TestingServer zookeeper;
    final Path dir;
    final int replicas;
    int[] ports;
    final List<ChildJvm> nodes = new ArrayList<>();
    /** Per node, the relay its ZooKeeper connection runs through (null: it connects directly). */
    LeaseProxy[] zkPaths;
    /** More kvserver options every node starts with ({@code --memory} among them replaces the 32 MiB default). */
    final List<String> nodeArgs;

    /** With {@code relayed}, each node reaches ZooKeeper through a relay of its own, which a test can cut. */
    ZkNodes(final Path dir, final int count, final int replicas, final boolean relayed) throws Exception
    {
        this(dir, count, replicas, relayed, List.of());
    }

    /** As above, every node started with {@code nodeArgs} too. */
    ZkNodes(final Path dir, final int count, final int replicas, final boolean relayed, final List<String> nodeArgs)
        throws Exception
    {
        this.dir = dir;
        this.nodeArgs = List.copyOf(nodeArgs);
        this.replicas = replicas;
        zookeeper = new TestingServer(true);
        ports = ClusterFiles.freePorts(count);
        zkPaths = new LeaseProxy[count];
        for (int i = 0; i < count; i++)
        {
            if (relayed)
            {
                zkPaths[i] = new LeaseProxy();
                zkPaths[i].start(zookeeper.getPort());
            }
            nodes.add(null);
            start(i);
        }
    }

    /**
     * Starts {@code count} more nodes, ids following the last, with the options every node started with (each through
     * a relay of its own when the first was): nodes joining a running cluster, as spares. Returns the first new id.
     */
    int add(final int count) throws Exception
    {
        final int first = ports.length;
        final int[] more = ClusterFiles.freePorts(count);
        ports = java.util.Arrays.copyOf(ports, first + count);
        System.arraycopy(more, 0, ports, first, count);
        zkPaths = java.util.Arrays.copyOf(zkPaths, first + count);
        for (int i = first; i < first + count; i++)
        {
            if (zkPaths[0] != null)
            {
                zkPaths[i] = new LeaseProxy();
                zkPaths[i].start(zookeeper.getPort());
            }
            nodes.add(null);
            start(i);
        }
        return first;
    }

    /** Cuts node {@code i} off from ZooKeeper (its relay closes and accepts nothing more). */
    void cutFromZooKeeper(final int i)
    {
        zkPaths[i].close();
    }

    /** The highest-epoch map any node hands out (a node cut off may still hand out an old one). */
    ClusterMap newestMap()
    {
        ClusterMap newest = null;
        for (int i = 0; i < ports.length; i++)
        {
            try (KvClient probe = KvClient.connect(LocalCluster.clientConfig(address(i))
                .withConnectTimeout(Duration.ofSeconds(2).multipliedBy(SLOWNESS))))
            {
                final ClusterMap map = probe.clusterMap();
                if (newest == null || map.epoch() > newest.epoch())
                {
                    newest = map;
                }
            }
            catch (final RuntimeException e)
            {
                // down or not in the map: ask the next
            }
        }
        return newest;
    }

    /** Starts (or restarts, empty) node {@code i}. */
    void start(final int i)
    {
        final List<String> args = new ArrayList<>(LocalCluster.nodeArgs(i, ports[i]));
        if (!nodeArgs.contains("--memory"))
        {
            args.addAll(List.of("--memory", "32m"));
        }
        args.addAll(List.of("--node-id", Integer.toString(i), "--zookeeper",
            zkPaths[i] == null ? zookeeper.getConnectString() : "127.0.0.1:" + zkPaths[i].port(), "--cluster-name", "it",
            "--replicas", Integer.toString(replicas), "--zk-session-timeout-ms", Integer.toString(SESSION_TIMEOUT_MS),
            "--metrics-port", "0"));
        args.addAll(nodeArgs);
        nodes.set(i, ChildJvm.start(List.of("-Xmx256m", LOG_FORMAT), KvServerCommand.class, dir,
            args.toArray(String[]::new)));
    }

    void kill(final int i) throws InterruptedException
    {
        nodes.get(i).kill();
    }

    /** SIGTERM: the node leaves the cluster and stops cleanly. */
    void stop(final int i) throws InterruptedException
    {
        final Process p = nodes.get(i).process();
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS))
        {
            throw new AssertionError("node " + i + " did not stop within 30 s of SIGTERM");
        }
    }

    /** Sends {@code signal} (a name such as STOP or CONT, as for kill(1)) to node {@code i}. */
    void signal(final int i, final String signal) throws InterruptedException
    {
        try
        {
            final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(nodes.get(i).process().pid()))
                .inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0)
            {
                throw new AssertionError("kill -" + signal + " of node " + i + " failed");
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** "host:port" of node {@code i}'s bootstrap listener. */
    String address(final int i)
    {
        return LocalCluster.nodeHost(i) + ":" + ports[i];
    }

    String seeds()
    {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < ports.length; i++)
        {
            s.append(s.isEmpty() ? "" : ",").append(address(i));
        }
        return s.toString();
    }

    /** Waits until the map handed out satisfies {@code condition} ({@code timeout} times {@link #SLOWNESS}); returns it. */
    ClusterMap awaitMap(final String what, final Duration timeout, final Predicate<ClusterMap> condition)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.multipliedBy(SLOWNESS).toNanos();
        ClusterMap last = null;
        while (System.nanoTime() < deadline)
        {
            if (nodes.stream().noneMatch(n -> n != null && n.process().isAlive()))
            {
                break; // every node is gone (a start-up refusal, say): no map will come
            }
            final ClusterMap map = newestMap();
            if (map != null)
            {
                last = map;
                if (condition.test(map))
                {
                    return map;
                }
            }
            Thread.sleep(200);
        }
        final StringBuilder stderr = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++)
        {
            stderr.append("\nnode ").append(i).append(": ").append(nodes.get(i).stderr());
        }
        final long alive = nodes.stream().filter(n -> n != null && n.process().isAlive()).count();
        throw new AssertionError((alive == 0 ? "every node exited while waiting" : "waited " + timeout) + " for " +
            what + "; last map " + last + stderr);
    }

    /** Whether every group of {@code map} has {@code replicas} members in sync and none copying or sealed. */
    static boolean fullyReplicated(final ClusterMap map, final int replicas)
    {
        for (final ReplicaGroup g : map.groups())
        {
            if (g.memberCount() != replicas || g.copyingCount() != 0 || g.sealed())
            {
                return false;
            }
        }
        return !map.isSimple();
    }

    /**
     * Copies every node's whole log (stderr) to {@code target/node-logs/<test>-node<i>.log}, replacing the last
     * run's, so that a failed run can be read afterwards ({@code scripts/loop-tests.sh} keeps them with the reports);
     * to the folder {@code -Drdmakv.test.nodeLogs} names instead where set (the Soft-RoCE VMs, whose only writable
     * folder is their output's).
     */
    void keepLogs(final String test)
    {
        final String named = System.getProperty("rdmakv.test.nodeLogs");
        final Path logs = named != null ? Path.of(named) :
            Path.of(System.getProperty("basedir", "."), "target", "node-logs");
        try
        {
            Files.createDirectories(logs);
            for (int i = 0; i < nodes.size(); i++)
            {
                if (nodes.get(i) != null)
                {
                    Files.copy(nodes.get(i).stderrFile(), logs.resolve(test + "-node" + i + ".log"),
                        StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        catch (final IOException e)
        {
            System.err.println("[zk-nodes] could not keep the node logs: " + e);
        }
    }

    @Override
    public void close() throws Exception
    {
        for (final ChildJvm node : nodes)
        {
            LocalCluster.closeAll(node);
        }
        LocalCluster.closeAll(zkPaths);
        zookeeper.close();
    }
}
