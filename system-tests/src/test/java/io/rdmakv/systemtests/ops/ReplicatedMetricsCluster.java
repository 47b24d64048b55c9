package io.rdmakv.systemtests.ops;

import io.rdmakv.server.KvServerCommand;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.faults.ChildJvm;
import org.apache.curator.test.TestingServer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A replicated cluster as operators run it, for the dashboard and rules: a real ZooKeeper server
 * (curator-test) and kvserver child JVMs that join it ({@code --zookeeper}, {@code --replicas}), each with its
 * Prometheus endpoint on a port of its own ({@code --metrics-port}). Node i listens on {@code ports[i]} and
 * serves metrics on {@code metricsPorts[i]}.
 */
final class ReplicatedMetricsCluster implements AutoCloseable
{
    private static final int SESSION_TIMEOUT_MS = 2000;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One scrape of one node: each sample as "name{labels}" (as written) to its value, and each family's TYPE. */
    record Scrape(Map<String, Double> samples, Map<String, String> types)
    {
        /** The value of an unlabelled sample, or NaN when absent. */
        double value(final String name)
        {
            return samples.getOrDefault(name, Double.NaN);
        }

        /** Series names (without labels), as the test's PromQL references name them. */
        List<String> names()
        {
            final List<String> names = new ArrayList<>();
            for (final String sample : samples.keySet())
            {
                final int brace = sample.indexOf('{');
                names.add(brace < 0 ? sample : sample.substring(0, brace));
            }
            return names;
        }
    }

    private final TestingServer zookeeper;
    private final List<ChildJvm> nodes = new ArrayList<>();
    private final Path dir;
    private final int replicas;
    final int[] ports;
    final int[] metricsPorts;

    ReplicatedMetricsCluster(final Path dir, final int count, final int replicas) throws Exception
    {
        this.dir = dir;
        this.replicas = replicas;
        zookeeper = new TestingServer(true);
        final int[] free = ClusterFiles.freePorts(2 * count);
        ports = new int[count];
        metricsPorts = new int[count];
        for (int i = 0; i < count; i++)
        {
            ports[i] = free[2 * i];
            metricsPorts[i] = free[2 * i + 1];
            nodes.add(launch(i));
        }
    }

    private ChildJvm launch(final int i)
    {
        return ChildJvm.start(List.of("-Xmx256m"), KvServerCommand.class, dir,
            "--transport", LocalCluster.TRANSPORT, "--cm", LocalCluster.CM.label(),
            "--memory", "32m", "--listen", "127.0.0.1:" + ports[i],
            "--node-id", Integer.toString(i), "--zookeeper", zookeeper.getConnectString(),
            "--cluster-name", "dashboard", "--replicas", Integer.toString(replicas),
            "--zk-session-timeout-ms", Integer.toString(SESSION_TIMEOUT_MS),
            "--metrics-host", "127.0.0.1", "--metrics-port", Integer.toString(metricsPorts[i]));
    }

    /** Starts node {@code i} again (empty, a new incarnation) after it was killed. */
    void restart(final int i) throws InterruptedException
    {
        if (alive(i))
        {
            throw new IllegalStateException("node " + i + " is running");
        }
        nodes.get(i).close();
        nodes.set(i, launch(i));
    }

    String seeds()
    {
        final StringBuilder s = new StringBuilder();
        for (final int port : ports)
        {
            s.append(s.isEmpty() ? "" : ",").append("127.0.0.1:").append(port);
        }
        return s.toString();
    }

    /** SIGKILL of node {@code i}. */
    void kill(final int i) throws InterruptedException
    {
        nodes.get(i).kill();
    }

    boolean alive(final int i)
    {
        return nodes.get(i).process().isAlive();
    }

    /** Scrapes node {@code i}'s /metrics (text format). */
    Scrape scrape(final int i) throws IOException, InterruptedException
    {
        final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + metricsPorts[i] + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200)
        {
            throw new IOException("node " + i + " answered the scrape with " + response.statusCode());
        }
        final Map<String, Double> samples = new LinkedHashMap<>();
        final Map<String, String> types = new LinkedHashMap<>();
        for (final String line : response.body().split("\n"))
        {
            if (line.startsWith("# TYPE "))
            {
                final String[] f = line.split(" ");
                types.put(f[2], f[3]);
            }
            else if (!line.isBlank() && !line.startsWith("#"))
            {
                final int space = line.lastIndexOf(' ');
                samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return new Scrape(samples, types);
    }

    /** Scrapes every live node (index to scrape); a node that does not answer (yet) is left out. */
    Map<Integer, Scrape> scrapeAll() throws InterruptedException
    {
        final Map<Integer, Scrape> result = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++)
        {
            if (!alive(i))
            {
                continue;
            }
            try
            {
                result.put(i, scrape(i));
            }
            catch (final IOException e)
            {
                // still starting (no endpoint yet) or going: not in this round
            }
        }
        return result;
    }

    /** Scrapes every live node until {@code condition} holds for the scrapes; returns them. */
    Map<Integer, Scrape> awaitScrapes(final String what, final Duration timeout,
        final Predicate<Map<Integer, Scrape>> condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        Map<Integer, Scrape> last = Map.of();
        while (System.nanoTime() < deadline)
        {
            last = scrapeAll();
            if (condition.test(last))
            {
                return last;
            }
            Thread.sleep(200);
        }
        final StringBuilder sb = new StringBuilder("waited " + timeout + " for " + what + "; last scrapes:");
        last.forEach((i, s) -> sb.append("\n  node ").append(i).append(": role ")
            .append(s.value("rdmakv_replica_role")).append(", epoch ").append(s.value("rdmakv_cluster_epoch"))
            .append(", zookeeper ").append(s.value("rdmakv_zookeeper_connected")).append(", current ")
            .append(s.value("rdmakv_node_current")));
        for (int i = 0; i < nodes.size(); i++)
        {
            sb.append("\nnode ").append(i).append(" stderr: ").append(nodes.get(i).stderr());
        }
        throw new AssertionError(sb.toString());
    }

    @Override
    public void close() throws Exception
    {
        for (final ChildJvm node : nodes)
        {
            LocalCluster.closeAll(node);
        }
        zookeeper.close();
    }

    /** The scrape in which a group of two (primary, backup) and a spare formed, and their ids. */
    record GroupAndSpare(Map<Integer, Scrape> scrapes, int spare, int primary, int backup)
    {
    }

    /** Waits (40 s at most) until the three nodes form a group of two and a spare on one epoch. */
    GroupAndSpare awaitGroupAndSpare() throws InterruptedException
    {
        final Map<Integer, Scrape> s = awaitScrapes("a group of two and a spare on one epoch", Duration.ofSeconds(40),
            x -> x.size() == 3 && roles(x).equals(List.of(0, 2, 3)) && sameEpoch(x));
        return new GroupAndSpare(s, nodeWithRole(s, 0), nodeWithRole(s, 3), nodeWithRole(s, 2));
    }

    /** The nodes' roles ({@code rdmakv_replica_role}), ascending. */
    static List<Integer> roles(final Map<Integer, Scrape> scrapes)
    {
        return scrapes.values().stream().map(s -> (int)s.value("rdmakv_replica_role")).sorted().toList();
    }

    /** Every node current and on the same epoch ({@code rdmakv_cluster_epoch}). */
    static boolean sameEpoch(final Map<Integer, Scrape> scrapes)
    {
        return scrapes.values().stream().allMatch(s -> s.value("rdmakv_node_current") == 1 &&
            s.value("rdmakv_cluster_epoch") > 0) &&
            scrapes.values().stream().map(s -> s.value("rdmakv_cluster_epoch")).distinct().count() == 1;
    }

    /** The id of the node whose {@code rdmakv_replica_role} is {@code role}. */
    static int nodeWithRole(final Map<Integer, Scrape> scrapes, final int role)
    {
        return scrapes.entrySet().stream().filter(e -> e.getValue().value("rdmakv_replica_role") == role)
            .map(Map.Entry::getKey).findFirst().orElseThrow();
    }

    /** Waits until {@code primary} has an epoch above {@code epoch} and {@code backup} the same; returns it. */
    static long awaitEpochAbove(final ReplicatedMetricsCluster cluster, final int primary, final int backup,
        final long epoch, final String what) throws InterruptedException
    {
        final Map<Integer, Scrape> s = cluster.awaitScrapes(what, Duration.ofSeconds(30),
            x -> x.containsKey(primary) && x.containsKey(backup) &&
                x.get(primary).value("rdmakv_cluster_epoch") > epoch &&
                x.get(backup).value("rdmakv_cluster_epoch") == x.get(primary).value("rdmakv_cluster_epoch"));
        return (long)s.get(primary).value("rdmakv_cluster_epoch");
    }
}
