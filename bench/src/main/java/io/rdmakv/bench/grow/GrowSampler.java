package io.rdmakv.bench.grow;

import io.rdmakv.bench.BenchArgs;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.map.MapPlanner;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.zk.ZkClients;
import io.rdmakv.server.cluster.zk.ZkCredentials;
import io.rdmakv.server.cluster.zk.ZkOptions;
import io.rdmakv.server.cluster.zk.ZkPaths;
import io.rdmakv.server.cluster.zk.ZkTls;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * The server side of {@code bench/grow.sh}: connects to the cluster's ZooKeeper as its nodes do (TLS with the
 * nodes' client certificate, the digest credential), optionally turns the growth switch ({@code rebalance/auto})
 * on, then once a second, on the wall clock's second, until the stop file appears, appends one tab-separated row
 * to the output: the map as ZooKeeper holds it (epoch, groups, the batches in it and their phases, groups
 * copying, each group's partitions, whether the planner's rule 5 would start more batches:
 * {@link MapPlanner#plannedMoves}) and the move counters of every node in the map, scraped from its metrics
 * port (metrics base port + node id): partitions moving as source, bytes and keys copied, batches finished,
 * freeze seconds, the oldest phase's age. A node that does not answer in time (a busy one on a loaded machine) is named in the row and
 * counted with the values of its last answer, so the counters do not drop.
 */
public final class GrowSampler
{
    /** The row's columns, in order (the header line). */
    static final String HEADER = String.join("\t", "unix_ms", "epoch", "groups", "batches", "batch_partitions",
        "phases", "groups_copying", "group_partitions", "planned_batches", "moving_source", "moving_target",
        "move_bytes_total", "move_keys_total", "moves_finished_total", "moves_aborted_total",
        "freeze_seconds_total", "phase_age_max_s", "nodes_unanswered");

    /** Each node's values at its last answer (sampled from one thread). */
    private static final java.util.Map<Integer, double[]> LAST = new java.util.HashMap<>();

    private GrowSampler()
    {
    }

    @Command(name = "GrowSampler", sortOptions = false,
        description = "Samples a growing cluster's map (ZooKeeper) and move metrics once a second.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Option(names = "--zookeeper", required = true, paramLabel = "HOST:PORT", description = "The cluster's ZooKeeper.")
        String zookeeper;

        @Option(names = "--cluster-name", defaultValue = "local", description = "The cluster's name.")
        String clusterName;

        @Option(names = "--zk-auth-file", paramLabel = "FILE", description = "The digest credential (user:password).")
        Path authFile;

        @Option(names = "--zk-tls-ca", paramLabel = "FILE", description = "CA of ZooKeeper's certificate (TLS).")
        Path tlsCa;

        @Option(names = "--zk-tls-cert", paramLabel = "FILE", description = "Client certificate.")
        Path tlsCert;

        @Option(names = "--zk-tls-key", paramLabel = "FILE", description = "Its key.")
        Path tlsKey;

        @Option(names = "--auto", paramLabel = "on|off", description = "Set rebalance/auto to this first.")
        String auto;

        @Option(names = "--metrics-base-port", required = true, paramLabel = "PORT",
            description = "Node i serves /metrics on 127.0.0.1:PORT+i.")
        int metricsBasePort;

        @Option(names = "--out", paramLabel = "FILE", description = "Where the rows go (none: only --auto).")
        Path out;

        @Option(names = "--stop-file", paramLabel = "FILE", description = "Stop once this file exists.")
        Path stopFile;
    }

    public static void main(final String[] args) throws Exception
    {
        final Options o = BenchArgs.parse(new Options(), args);
        final ZkOptions zk = new ZkOptions(o.zookeeper, o.clusterName, 1, 16, ZkOptions.DEFAULT_SESSION_TIMEOUT_MS,
            0, o.authFile == null ? null : ZkCredentials.fromFile(o.authFile),
            o.tlsCa == null ? null : new ZkTls(o.tlsCa, o.tlsCert, o.tlsKey));
        try (CuratorFramework client = ZkClients.build(zk))
        {
            client.start();
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("no connection to ZooKeeper at " + o.zookeeper + " within 30 s");
            }
            if (o.auto != null)
            {
                setAuto(client, o.auto);
            }
            if (o.out == null)
            {
                return;
            }
            final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(300)).build();
            try (PrintWriter rows = new PrintWriter(Files.newBufferedWriter(o.out, StandardCharsets.UTF_8)))
            {
                rows.println(HEADER);
                rows.flush();
                while (o.stopFile == null || !Files.exists(o.stopFile))
                {
                    final long now = System.currentTimeMillis();
                    Thread.sleep(1000 - now % 1000);
                    rows.println(sample(client, http, o.metricsBasePort));
                    rows.flush();
                }
            }
        }
    }

    /** Creates or overwrites {@code rebalance/auto} with {@code value} (the nodes' ACL: the builder's provider). */
    static void setAuto(final CuratorFramework client, final String value) throws Exception
    {
        if (!value.equals("on") && !value.equals("off"))
        {
            throw new IllegalArgumentException("--auto takes on or off, not '" + value + "'");
        }
        final byte[] data = value.getBytes(StandardCharsets.US_ASCII);
        try
        {
            client.create().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO, data);
        }
        catch (final KeeperException.NodeExistsException e)
        {
            client.setData().forPath(ZkPaths.REBALANCE_AUTO, data);
        }
        System.err.println("GrowSampler: " + ZkPaths.REBALANCE_AUTO + " = " +
            new String(client.getData().forPath(ZkPaths.REBALANCE_AUTO), StandardCharsets.US_ASCII));
    }

    private static String sample(final CuratorFramework client, final HttpClient http, final int metricsBase)
        throws Exception
    {
        final long at = System.currentTimeMillis();
        final ClusterMap map = StoredMap.fromJson(client.getData().forPath(ZkPaths.MAP)).map();
        final List<MemberInfo> live = new ArrayList<>();
        for (final String id : client.getChildren().forPath(ZkPaths.MEMBERS))
        {
            try
            {
                live.add(MemberInfo.fromJson(client.getData().forPath(ZkPaths.MEMBERS + "/" + id)));
            }
            catch (final KeeperException.NoNodeException gone)
            {
                // left between the listing and the read
            }
        }
        int batchPartitions = 0;
        final StringJoiner phases = new StringJoiner(",");
        for (final MoveBatch b : map.moves().batches())
        {
            batchPartitions += b.size();
            phases.add(b.id() + ":" + b.phase());
        }
        int copying = 0;
        final int[] owned = new int[map.groups().size()];
        for (int p = 0; p < map.partitionCount(); p++)
        {
            owned[map.groupIndexOf(p)]++;
        }
        final StringJoiner groupPartitions = new StringJoiner("/");
        for (int g = 0; g < map.groups().size(); g++)
        {
            final ReplicaGroup group = map.groups().get(g);
            copying += group.copyingCount() > 0 ? 1 : 0;
            groupPartitions.add(Integer.toString(owned[g]));
        }
        final int planned = MapPlanner.plannedMoves(map, live).size();
        final double[] sums = new double[8];
        final StringJoiner unanswered = new StringJoiner(",");
        // every node at once: one that does not answer costs its timeout once, not once per node
        final List<java.util.concurrent.CompletableFuture<String>> scrapes = new ArrayList<>();
        for (final var node : map.nodes())
        {
            scrapes.add(scrape(http, metricsBase + node.id()));
        }
        for (int n = 0; n < map.nodes().size(); n++)
        {
            final var node = map.nodes().get(n);
            final String text = scrapes.get(n).join();
            final double[] v;
            if (text == null)
            {
                // a busy node that misses the deadline keeps its last values: the counters never drop
                unanswered.add(Integer.toString(node.id()));
                v = LAST.getOrDefault(node.id(), new double[8]);
            }
            else
            {
                v = new double[] {value(text, "rdmakv_partitions_moving{role=\"source\"}"),
                    value(text, "rdmakv_partitions_moving{role=\"target\"}"), value(text, "rdmakv_move_bytes_total"),
                    value(text, "rdmakv_move_keys_total"), value(text, "rdmakv_moves_total{outcome=\"finished\"}"),
                    value(text, "rdmakv_moves_total{outcome=\"aborted\"}"),
                    value(text, "rdmakv_move_freeze_seconds_total"), value(text, "rdmakv_move_phase_age_seconds")};
                LAST.put(node.id(), v);
            }
            for (int i = 0; i < 7; i++)
            {
                sums[i] += v[i];
            }
            sums[7] = Math.max(sums[7], v[7]);
        }
        return String.join("\t", Long.toString(at), Long.toString(map.epoch()), Integer.toString(map.groups().size()),
            Integer.toString(map.moves().batches().size()), Integer.toString(batchPartitions),
            phases.length() == 0 ? "-" : phases.toString(), Integer.toString(copying), groupPartitions.toString(),
            Integer.toString(planned), whole(sums[0]), whole(sums[1]), whole(sums[2]), whole(sums[3]), whole(sums[4]),
            whole(sums[5]), String.format(Locale.ROOT, "%.6f", sums[6]), String.format(Locale.ROOT, "%.3f", sums[7]),
            unanswered.length() == 0 ? "-" : unanswered.toString());
    }

    private static String whole(final double v)
    {
        return Long.toString(Math.round(v));
    }

    /** The node's metrics text, or null when it does not answer within 900 ms. */
    private static java.util.concurrent.CompletableFuture<String> scrape(final HttpClient http, final int port)
    {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofMillis(900)).build(), HttpResponse.BodyHandlers.ofString())
            .handle((r, failure) -> failure == null && r.statusCode() == 200 ? r.body() : null);
    }

    /** The value of the sample named exactly {@code series} (name and labels as printed), 0 when absent. */
    static double value(final String text, final String series)
    {
        for (final String line : text.split("\n"))
        {
            if (line.startsWith(series) && line.length() > series.length() && line.charAt(series.length()) == ' ')
            {
                final String[] parts = line.substring(series.length() + 1).trim().split(" ");
                return Double.parseDouble(parts[0]);
            }
        }
        return 0;
    }
}
