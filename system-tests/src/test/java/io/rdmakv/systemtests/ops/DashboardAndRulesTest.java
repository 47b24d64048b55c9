package io.rdmakv.systemtests.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.Readiness;
import io.rdmakv.server.metrics.ServerMetrics;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.rdmakv.systemtests.LocalCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.nodeWithRole;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.roles;

/**
 * What operators look at, checked against what the code exports: the Grafana dashboard
 * ({@code deploy/grafana/rdmakv.json}) and the Prometheus rules ({@code deploy/prometheus/rdmakv-rules.yml})
 * are well formed, every recording rule the dashboard or an alert reads is defined, and every {@code rdmakv_*}
 * series their PromQL reads is exported by a live node and a live client after a short workload (so renaming a
 * metric in the code fails here, not on an operator's empty panel). Series under rate()/increase() must be
 * counters or histogram parts, and {@code _bucket}/{@code _count}/{@code _sum} must belong to a histogram.
 * The Replication row and the replication alerts are checked against a live replicated ZooKeeper cluster
 * (every node exports what they read, through a failover and a copy), and the alerts' firing against
 * {@code promtool test rules} cases. So are the Growth row and the move alerts (every node exports the move series,
 * 0 while nothing moves; the alerts' cases in {@code growth-alerts.promtool.yml}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DashboardAndRulesTest
{
    private static final String DATASOURCE = "${datasource}";
    private static final Pattern RECORD_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*(:[a-zA-Z0-9_]+)+");
    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|s|m|h|d|w|y))+");
    private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String REPLICATION_ROW = "Replication";
    /** What the Replication row shows (client lease refreshes: no client series yet). */
    private static final Set<String> REPLICATION_SERIES = Set.of("rdmakv_cluster_epoch", "rdmakv_replica_role",
        "rdmakv_zookeeper_connected", "rdmakv_node_current", "rdmakv_sessions_self_fenced_total",
        "rdmakv_failovers_total", "rdmakv_copy_passes_total", "rdmakv_copy_slots_total", "rdmakv_chain_sweeps_total",
        "rdmakv_scrub_passes_total", "rdmakv_scrub_repairs_total", "rdmakv_cluster_maps_refused_total");
    private static final Set<String> REPLICATION_ALERTS = Set.of("RdmakvReplicaSetDegraded",
        "RdmakvReplicaGroupWithoutPrimary", "RdmakvNodeFenced", "RdmakvNodeCutFromZooKeeper", "RdmakvChainSweepFailing",
        "RdmakvBackupDrifted", "RdmakvScrubFailing", "RdmakvClusterMapRefused");
    private static final String GROWTH_ROW = "Growth";
    /** What the Growth row shows: partition moves on the nodes, and the write pause as clients see it. */
    private static final Set<String> GROWTH_SERIES = Set.of("rdmakv_partitions_moving", "rdmakv_move_phase_age_seconds",
        "rdmakv_moves_total", "rdmakv_move_keys_total", "rdmakv_move_bytes_total", "rdmakv_move_freezes_total",
        "rdmakv_move_freeze_seconds_total", "rdmakv_client_frozen_wait_seconds_bucket",
        "rdmakv_client_frozen_wait_seconds_sum", "rdmakv_client_frozen_wait_seconds_count");
    private static final Set<String> GROWTH_ALERTS = Set.of("RdmakvMoveStuck", "RdmakvMoveAborting");

    private static Path rulesFile;
    private static Path dashboardFile;
    private static JsonNode dashboard;
    private static JsonNode rules;

    @BeforeAll
    static void load() throws IOException
    {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("deploy/grafana/rdmakv.json")))
        {
            root = root.getParent();
        }
        assertNotNull(root, "deploy/grafana/rdmakv.json above " + Path.of("").toAbsolutePath());
        dashboardFile = root.resolve("deploy/grafana/rdmakv.json");
        rulesFile = root.resolve("deploy/prometheus/rdmakv-rules.yml");
        dashboard = new ObjectMapper().readTree(dashboardFile.toFile());
        rules = new YAMLMapper().readTree(rulesFile.toFile());
    }

    @Test
    void theDashboardIsAnImportableGrafanaDashboard()
    {
        assertFalse(dashboard.path("uid").asText().isBlank(), "uid");
        assertFalse(dashboard.path("title").asText().isBlank(), "title");
        assertTrue(dashboard.path("schemaVersion").asInt() >= 39, "schemaVersion 39 or later (Grafana 10+)");

        final Map<String, JsonNode> variables = new HashMap<>();
        for (final JsonNode v : dashboard.path("templating").path("list"))
        {
            assertNull(variables.put(v.path("name").asText(), v), "variable names are unique: " + v.path("name"));
        }
        final JsonNode ds = variables.get("datasource");
        assertNotNull(ds, "a datasource variable: " + variables.keySet());
        assertEquals("datasource", ds.path("type").asText());
        assertEquals("prometheus", ds.path("query").asText());
        final JsonNode instance = variables.get("instance");
        assertNotNull(instance, "an instance variable");
        assertEquals("query", instance.path("type").asText());
        assertTrue(query(instance).matches("label_values\\((rdmakv_node_info|rdmakv_ready)\\s*,\\s*instance\\)"),
            query(instance));
        for (final JsonNode v : variables.values())
        {
            if (v.path("type").asText().equals("query"))
            {
                assertEquals(DATASOURCE, v.path("datasource").path("uid").asText(), "variable " + v.path("name"));
            }
        }

        final Set<Integer> ids = new HashSet<>();
        final List<int[]> boxes = new ArrayList<>();
        int rows = 0;
        int targets = 0;
        for (final JsonNode p : allPanels())
        {
            final String name = "panel '" + p.path("title").asText() + "'";
            assertTrue(p.path("id").isInt(), name + " has an id");
            assertTrue(ids.add(p.path("id").asInt()), name + ": duplicate panel id " + p.path("id"));
            assertFalse(p.path("title").asText().isBlank(), "panel " + p.path("id") + " has a title");
            final JsonNode g = p.path("gridPos");
            for (final String k : List.of("h", "w", "x", "y"))
            {
                assertTrue(g.path(k).isInt() && g.path(k).asInt() >= 0, name + ": gridPos." + k);
            }
            final int[] box = {g.get("x").asInt(), g.get("y").asInt(), g.get("w").asInt(), g.get("h").asInt()};
            assertTrue(box[2] > 0 && box[3] > 0 && box[0] + box[2] <= 24, name + ": gridPos inside 24 columns");
            for (final int[] other : boxes)
            {
                assertFalse(box[0] < other[0] + other[2] && other[0] < box[0] + box[2] &&
                    box[1] < other[1] + other[3] && other[1] < box[1] + box[3], name + " overlaps another panel");
            }
            boxes.add(box);
            if (p.path("type").asText().equals("row"))
            {
                rows++;
                assertEquals(24, box[2], name + ": a row is full width");
                continue;
            }
            assertFalse(p.path("type").asText().isBlank(), name + ": type");
            assertEquals(DATASOURCE, p.path("datasource").path("uid").asText(), name + ": datasource");
            assertTrue(p.path("targets").isArray() && !p.path("targets").isEmpty(), name + ": targets");
            final Set<String> refIds = new HashSet<>();
            for (final JsonNode t : p.path("targets"))
            {
                targets++;
                assertFalse(t.path("expr").asText().isBlank(), name + ": a target without expr");
                assertTrue(refIds.add(t.path("refId").asText()), name + ": refIds are unique");
                assertEquals("prometheus", t.path("datasource").path("type").asText(), name + ": target datasource");
                assertEquals(DATASOURCE, t.path("datasource").path("uid").asText(), name + ": target datasource");
            }
        }
        assertTrue(rows >= 6, "the dashboard's rows: " + rows);
        System.out.println("[dashboard] " + dashboardFile + ": " + ids.size() + " panels (" + rows + " rows), " +
            targets + " queries, well formed");
    }

    @Test
    void everyRuleIsARecordOrAnAlertWithItsSeverityAndSummary()
    {
        assertTrue(rules.path("groups").isArray() && !rules.path("groups").isEmpty(), "groups");
        final Set<String> groups = new HashSet<>();
        final Set<String> names = new HashSet<>();
        int records = 0;
        int alerts = 0;
        for (final JsonNode group : rules.path("groups"))
        {
            assertTrue(groups.add(group.path("name").asText("")), "group names are unique and present");
            if (group.has("interval"))
            {
                assertTrue(DURATION.matcher(group.path("interval").asText()).matches(), "interval");
            }
            assertTrue(group.path("rules").isArray() && !group.path("rules").isEmpty(), "rules of " + group);
            for (final JsonNode rule : group.path("rules"))
            {
                final String where = group.path("name").asText() + ": " + rule;
                assertFalse(rule.path("expr").asText("").isBlank(), "an expr: " + where);
                assertTrue(rule.has("record") != rule.has("alert"), "either record or alert: " + where);
                if (rule.has("record"))
                {
                    records++;
                    final String name = rule.path("record").asText();
                    assertTrue(RECORD_NAME.matcher(name).matches(), "a level:metric:operations name: " + where);
                    assertTrue(names.add(name), "defined once: " + name);
                    for (final String key : List.of("for", "annotations"))
                    {
                        assertFalse(rule.has(key), "no " + key + " on a recording rule: " + where);
                    }
                }
                else
                {
                    alerts++;
                    assertTrue(names.add(rule.path("alert").asText()), "alert names are unique: " + where);
                    assertTrue(DURATION.matcher(rule.path("for").asText("")).matches(), "for: a duration: " + where);
                    assertTrue(SEVERITIES.contains(rule.path("labels").path("severity").asText()),
                        "labels.severity one of " + SEVERITIES + ": " + where);
                    assertFalse(rule.path("annotations").path("summary").asText("").isBlank(),
                        "annotations.summary: " + where);
                    assertFalse(rule.path("annotations").path("description").asText("").isBlank(),
                        "annotations.description: " + where);
                }
            }
        }
        assertTrue(records > 0 && alerts > 0);
        System.out.println("[rules] " + rulesFile + ": " + records + " recording rules, " + alerts + " alerts");
    }

    /**
     * Prometheus's own parser accepts the rules ({@code promtool check rules}; Debian's {@code prometheus}
     * package, installed by scripts/setup.sh). Where promtool is missing the test says so instead of passing.
     */
    @Test
    void promtoolAcceptsTheRules() throws Exception
    {
        final Path promtool = java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
            .map(dir -> Path.of(dir, "promtool")).filter(Files::isExecutable).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(promtool != null,
            "promtool is not installed here (scripts/setup.sh installs Debian's prometheus package, which has it)");
        final Process check = new ProcessBuilder(promtool.toString(), "check", "rules", rulesFile.toString())
            .redirectErrorStream(true).start();
        final String output = new String(check.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS), "promtool finished");
        System.out.println("[promtool] " + output.strip().replace('\n', ' '));
        assertEquals(0, check.exitValue(), output);
        assertTrue(output.contains("SUCCESS"), output);
    }

    /**
     * The replication alerts fire, and stay quiet, as their comments say: {@code promtool test rules} on the
     * cases in {@code replication-alerts.promtool.yml} (a backup lost and not replaced, a spare copying in, a
     * group's only primary cut from ZooKeeper, a node fenced with ZooKeeper up, a node without ZooKeeper, one
     * failed sweep and failing sweeps). Skipped, saying so, where promtool is missing.
     */
    @Test
    void promtoolPassesTheReplicationAlertCases(@TempDir final Path dir) throws Exception
    {
        promtoolTestRules(dir, "replication-alerts.promtool.yml", REPLICATION_ALERTS);
    }

    /**
     * The move alerts fire, and stay quiet, as their comments say: {@code promtool test rules} on the cases in
     * {@code growth-alerts.promtool.yml} (a batch stuck in its phase, seen from a node that restarted too; a move
     * whose phases each end within 5 minutes; an abort reported for the hour after it, and old aborts or a
     * restarted node's counter that are not). Skipped, saying so, where promtool is missing.
     */
    @Test
    void promtoolPassesTheGrowthAlertCases(@TempDir final Path dir) throws Exception
    {
        promtoolTestRules(dir, "growth-alerts.promtool.yml", GROWTH_ALERTS);
    }

    /**
     * Runs {@code promtool test rules} on the cases in the resource {@code name} next to this class, with the rules'
     * path written in place of RULES_FILE; each of {@code alerts} must have a case.
     */
    private static void promtoolTestRules(final Path dir, final String name, final Set<String> alerts) throws Exception
    {
        final Path promtool = java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
            .map(d -> Path.of(d, "promtool")).filter(Files::isExecutable).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(promtool != null,
            "promtool is not installed here (scripts/setup.sh installs Debian's prometheus package, which has it)");
        final String cases;
        try (java.io.InputStream in = DashboardAndRulesTest.class.getResourceAsStream(name))
        {
            assertNotNull(in, name + " next to the test");
            cases = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertTrue(cases.contains("RULES_FILE"), "the cases name the rules as RULES_FILE");
        final Path file = Files.writeString(dir.resolve(name.replace(".promtool.yml", ".yml")),
            cases.replace("RULES_FILE", rulesFile.toAbsolutePath().toString()));
        final Process test = new ProcessBuilder(promtool.toString(), "test", "rules", file.toString())
            .redirectErrorStream(true).start();
        final String output = new String(test.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(test.waitFor(60, TimeUnit.SECONDS), "promtool finished");
        System.out.println("[promtool test] " + name + ": " + output.strip().replace('\n', ' '));
        assertEquals(0, test.exitValue(), output);
        for (final String alert : alerts)
        {
            assertTrue(cases.contains("alertname: " + alert), "a case for " + alert);
        }
    }

    /**
     * The Growth row reads every move series (the node's partitions moving, phase age, outcomes, keys, bytes and
     * freezes, and the client's frozen-write wait), the move alerts are defined, and each reads a move series.
     * That a live node and client export them as read is {@link #everyMetricTheDashboardAndTheRulesReadIsExportedByANodeAndAClient}'s
     * check, and every node of a replicated cluster {@link #everyReplicationSeriesIsExportedByALiveReplicatedCluster}'s.
     */
    @Test
    void theGrowthRowAndTheMoveAlertsReadTheMoveSeries()
    {
        final Set<String> row = rowSeries(GROWTH_ROW);
        assertTrue(row.containsAll(GROWTH_SERIES), "the " + GROWTH_ROW + " row reads " + GROWTH_SERIES + "; it reads " +
            row);
        final Map<String, JsonNode> alerts = new HashMap<>();
        for (final JsonNode r : rules())
        {
            if (r.has("alert"))
            {
                alerts.put(r.path("alert").asText(), r);
            }
        }
        for (final String alert : GROWTH_ALERTS)
        {
            assertTrue(alerts.containsKey(alert), "alert " + alert + ": " + alerts.keySet());
            final Set<String> read = new TreeSet<>();
            PromQl.parse(alerts.get(alert).path("expr").asText()).metrics().forEach(ref -> read.add(ref.name()));
            assertFalse(read.isEmpty(), alert + " reads a series");
            assertTrue(GROWTH_SERIES.containsAll(read), alert + " reads move series only: " + read);
        }
    }

    @Test
    void everyRecordingRuleTheDashboardAndTheAlertsReadIsDefined()
    {
        final Set<String> defined = new HashSet<>();
        for (final JsonNode r : rules())
        {
            if (r.has("record"))
            {
                defined.add(r.path("record").asText());
            }
        }
        final Map<String, String> undefined = new TreeMap<>();
        int used = 0;
        for (final Map.Entry<String, String> e : expressions().entrySet())
        {
            for (final String name : PromQl.parse(e.getValue()).recordingRules())
            {
                used++;
                if (!defined.contains(name))
                {
                    undefined.put(name, e.getKey());
                }
            }
        }
        assertTrue(undefined.isEmpty(), "recording rules read but not defined in " + rulesFile + ": " + undefined);
        assertTrue(used > 0, "the dashboard uses the recording rules");
    }

    @Test
    void everyMetricTheDashboardAndTheRulesReadIsExportedByANodeAndAClient() throws Exception
    {
        final Map<String, String> types = new HashMap<>();
        final Set<String> series = new TreeSet<>();
        final KvServer server = LocalCluster.startNode(ServerConfig.local(32L << 20));
        MetricsEndpoint serverEndpoint = null;
        HTTPServer clientEndpoint = null;
        try
        {
            final PrometheusRegistry serverRegistry = new PrometheusRegistry();
            final Readiness readiness = new Readiness();
            ServerMetrics.register(serverRegistry, server, readiness, 0);
            readiness.ready();
            serverEndpoint = MetricsEndpoint.start("127.0.0.1", 0, serverRegistry, readiness);
            final PrometheusRegistry clientRegistry = new PrometheusRegistry();
            clientEndpoint = HTTPServer.builder().hostname("127.0.0.1").port(0).registry(clientRegistry).buildAndStart();
            try (KvClient client = KvClient.connect(
                LocalCluster.clientConfig(LocalCluster.address(server)).withMetrics(clientRegistry)))
            {
                for (int i = 0; i < 50; i++)
                {
                    client.put(bytes("key-" + i), bytes("value-" + i));
                }
                for (int i = 0; i < 50; i++)
                {
                    assertNotNull(client.get(bytes("key-" + i)));
                }
                assertNull(client.get(bytes("absent")));
                assertTrue(client.delete(bytes("key-0")));
                final Versioned v = client.getVersioned(bytes("key-1"));
                assertTrue(client.putIfVersion(bytes("key-1"), bytes("new"), v.version()));
                client.nodeStats();
                scrape(clientEndpoint.getPort(), types, series);
                scrape(serverEndpoint.port(), types, series);
            }
        }
        finally
        {
            LocalCluster.closeAll(clientEndpoint == null ? null : clientEndpoint::close, serverEndpoint, server);
        }

        final Map<String, Set<String>> problems = new TreeMap<>();
        final Set<String> checked = new TreeSet<>();
        for (final Map.Entry<String, String> e : expressions().entrySet())
        {
            for (final PromQl.Reference ref : PromQl.parse(e.getValue()).metrics())
            {
                checked.add(ref.name());
                final String problem = problem(ref, types, series);
                if (problem != null)
                {
                    problems.computeIfAbsent(ref.name() + ": " + problem, k -> new TreeSet<>()).add(e.getKey());
                }
            }
        }
        if (!problems.isEmpty())
        {
            final StringBuilder sb = new StringBuilder("metrics the dashboard or the rules read that a live node and " +
                "client do not export as read:\n");
            problems.forEach((p, where) -> sb.append("  ").append(p).append("\n    used by ").append(where).append('\n'));
            sb.append("exported: ").append(series);
            fail(sb.toString());
        }
        assertTrue(checked.size() >= 30, "the dashboard and rules read most metrics: " + checked);
        System.out.println("[metrics] " + checked.size() + " rdmakv_* series read by " + dashboardFile.getFileName() +
            " and " + rulesFile.getFileName() + ", all exported by a live node and client");
    }

    /**
     * The Replication row and the replication alerts against a live replicated cluster (ZooKeeper, three nodes,
     * two replicas: one group and a spare): the row reads every replication series, every server series any
     * panel or rule reads is exported by each of these nodes as read, and the values are what the rules build
     * on (the roles of one group and a spare, one epoch, ZooKeeper connected, current). Then the primary is
     * killed: the backup is promoted, the spare copies in, and the survivors count the failover and the copy.
     */
    @Test
    void everyReplicationSeriesIsExportedByALiveReplicatedCluster(@TempDir final Path dir) throws Exception
    {
        final Set<String> row = rowSeries(REPLICATION_ROW);
        for (final JsonNode r : rules())
        {
            if (r.has("record") && r.path("record").asText().startsWith("job:rdmakv_"))
            {
                PromQl.parse(r.path("expr").asText()).metrics().forEach(ref -> row.add(ref.name()));
            }
        }
        assertTrue(row.containsAll(REPLICATION_SERIES), "the " + REPLICATION_ROW + " row (and the recording rules " +
            "it reads) reads " + REPLICATION_SERIES + "; it reads " + row);
        final Set<String> alerted = new TreeSet<>();
        for (final JsonNode r : rules())
        {
            if (r.has("alert"))
            {
                alerted.add(r.path("alert").asText());
            }
        }
        assertTrue(alerted.containsAll(REPLICATION_ALERTS), "replication alerts " + REPLICATION_ALERTS + ": " + alerted);

        final long start = System.nanoTime();
        try (ReplicatedMetricsCluster cluster = new ReplicatedMetricsCluster(dir, 3, 2))
        {
            Map<Integer, ReplicatedMetricsCluster.Scrape> scrapes = cluster.awaitScrapes(
                "one group of two in sync and a spare, all current on one epoch", Duration.ofSeconds(40),
                s -> s.size() == 3 && roles(s).equals(List.of(0, 2, 3)) && settled(s));
            System.out.println("[replication] 3 nodes, 2 replicas: " + describe(scrapes) + " after " +
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
            try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())))
            {
                for (int i = 0; i < 20; i++)
                {
                    client.put(bytes("key-" + i), bytes("value-" + i));
                }
                assertNotNull(client.get(bytes("key-7")));
            }
            scrapes = cluster.scrapeAll();
            assertEquals(3, scrapes.size(), "every node answers its scrape");
            for (final Map.Entry<Integer, ReplicatedMetricsCluster.Scrape> e : scrapes.entrySet())
            {
                assertReadable("node " + e.getKey() + " of a replicated cluster", e.getValue());
                assertNoMove("node " + e.getKey() + " of a replicated cluster", e.getValue());
            }

            // what the recording rules count: serving members in sync (R per group) and serving primaries
            assertEquals(2, count(scrapes, s -> s.value("rdmakv_replica_role") >= 2 &&
                s.value("rdmakv_node_current") == 1), "job:rdmakv_replicas_in_sync:count");
            assertEquals(1, count(scrapes, s -> s.value("rdmakv_replica_role") == 3 &&
                s.value("rdmakv_node_current") == 1), "job:rdmakv_primaries_serving:count");

            final int primary = nodeWithRole(scrapes, 3);
            final int spare = nodeWithRole(scrapes, 0);
            final long killed = System.nanoTime();
            cluster.kill(primary);
            scrapes = cluster.awaitScrapes("the backup promoted and the spare copied in", Duration.ofSeconds(30),
                s -> s.size() == 2 && roles(s).equals(List.of(2, 3)) && settled(s) &&
                    s.values().stream().allMatch(n -> n.value("rdmakv_failovers_total") >= 1));
            System.out.println("[replication] primary (node " + primary + ") killed: " + describe(scrapes) +
                " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed) + " ms");
            assertEquals(2, scrapes.get(spare).value("rdmakv_replica_role"), "the spare copied in and is a backup");
            assertTrue(scrapes.get(spare).value("rdmakv_copy_passes_total") >= 1,
                "the spare's copy passes: " + scrapes.get(spare).samples());
            for (final Map.Entry<Integer, ReplicatedMetricsCluster.Scrape> e : scrapes.entrySet())
            {
                assertReadable("node " + e.getKey() + " after a failover", e.getValue());
            }
        }
        System.out.println("[replication] " + REPLICATION_SERIES.size() + " replication series read by the dashboard " +
            "and rules, exported by every node of a replicated cluster; " + TimeUnit.NANOSECONDS.toMillis(
            System.nanoTime() - start) + " ms");
    }

    /** Every series the panels of the row titled {@code title} read (the panels after it, up to the next row). */
    private static Set<String> rowSeries(final String title)
    {
        final Set<String> row = new TreeSet<>();
        boolean found = false;
        boolean seen = false;
        for (final JsonNode p : dashboard.path("panels"))
        {
            if (p.path("type").asText().equals("row"))
            {
                found = p.path("title").asText().equals(title);
                seen |= found;
                continue;
            }
            if (found)
            {
                p.path("targets").forEach(t -> PromQl.parse(t.path("expr").asText()).metrics()
                    .forEach(ref -> row.add(ref.name())));
            }
        }
        assertTrue(seen, "a row titled " + title);
        return row;
    }

    /** Every server series the dashboard and the rules read is in {@code scrape}, as they read it. */
    private static void assertReadable(final String node, final ReplicatedMetricsCluster.Scrape scrape)
    {
        final Set<String> series = new HashSet<>(scrape.names());
        final Map<String, Set<String>> problems = new TreeMap<>();
        for (final Map.Entry<String, String> e : expressions().entrySet())
        {
            for (final PromQl.Reference ref : PromQl.parse(e.getValue()).metrics())
            {
                if (ref.name().startsWith("rdmakv_client_"))
                {
                    continue;
                }
                final String problem = problem(ref, scrape.types(), series);
                if (problem != null)
                {
                    problems.computeIfAbsent(ref.name() + ": " + problem, k -> new TreeSet<>()).add(e.getKey());
                }
            }
        }
        assertTrue(problems.isEmpty(), node + " does not export as read: " + problems + "\nexported: " +
            new TreeSet<>(series));
    }
    /**
     * No move was requested: every node exports each server series of the Growth row, all at 0 (what the move alerts
     * read stays quiet).
     */
    private static void assertNoMove(final String node, final ReplicatedMetricsCluster.Scrape scrape)
    {
        final Set<String> seen = new TreeSet<>();
        for (final Map.Entry<String, Double> sample : scrape.samples().entrySet())
        {
            final int brace = sample.getKey().indexOf('{');
            final String name = brace < 0 ? sample.getKey() : sample.getKey().substring(0, brace);
            if (GROWTH_SERIES.contains(name))
            {
                seen.add(name);
                assertEquals(0.0, sample.getValue(), node + ": " + sample.getKey() + " without a move");
            }
        }
        final Set<String> server = new TreeSet<>(GROWTH_SERIES);
        server.removeIf(name -> name.startsWith("rdmakv_client_"));
        assertEquals(server, seen, node + " exports every move series");
    }

    /** Every node connected to ZooKeeper, current, and on the same epoch. */
    private static boolean settled(final Map<Integer, ReplicatedMetricsCluster.Scrape> scrapes)
    {
        return scrapes.values().stream().allMatch(s -> s.value("rdmakv_zookeeper_connected") == 1 &&
            s.value("rdmakv_node_current") == 1 && s.value("rdmakv_cluster_epoch") > 0) &&
            scrapes.values().stream().map(s -> s.value("rdmakv_cluster_epoch")).distinct().count() == 1;
    }

    private static long count(final Map<Integer, ReplicatedMetricsCluster.Scrape> scrapes,
        final java.util.function.Predicate<ReplicatedMetricsCluster.Scrape> p)
    {
        return scrapes.values().stream().filter(p).count();
    }

    private static String describe(final Map<Integer, ReplicatedMetricsCluster.Scrape> scrapes)
    {
        final StringBuilder sb = new StringBuilder();
        scrapes.forEach((i, s) -> sb.append(sb.isEmpty() ? "" : "; ").append("node ").append(i).append(" role ")
            .append((int)s.value("rdmakv_replica_role")).append(" epoch ").append((long)s.value("rdmakv_cluster_epoch"))
            .append(" failovers ").append((long)s.value("rdmakv_failovers_total")).append(" copy passes ")
            .append((long)s.value("rdmakv_copy_passes_total")));
        return sb.toString();
    }

    /** Why {@code ref} cannot be read as written from a scrape with these series and types, or null. */
    private static String problem(final PromQl.Reference ref, final Map<String, String> types, final Set<String> series)
    {
        final String name = ref.name();
        if (!series.contains(name))
        {
            return "absent from the scrape";
        }
        String family = null;
        for (final String suffix : List.of("_bucket", "_count", "_sum"))
        {
            if (name.endsWith(suffix) && !types.containsKey(name))
            {
                family = name.substring(0, name.length() - suffix.length());
            }
        }
        final String type = family != null ? types.get(family) : types.get(name);
        if (name.endsWith("_bucket") && !"histogram".equals(type))
        {
            return "a _bucket series of a " + type + ", not of a histogram";
        }
        if (ref.function() != null && !"counter".equals(type) && !"histogram".equals(type))
        {
            return ref.function() + "() of a " + type;
        }
        return null;
    }

    /** Scrapes http://127.0.0.1:port/metrics (text format): series names and each family's TYPE. */
    private static void scrape(final int port, final Map<String, String> types, final Set<String> series)
        throws IOException, InterruptedException
    {
        final HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        for (final String line : response.body().split("\n"))
        {
            if (line.startsWith("# TYPE "))
            {
                final String[] f = line.split(" ");
                types.put(f[2], f[3]);
            }
            else if (!line.isBlank() && !line.startsWith("#"))
            {
                int end = 0;
                while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ')
                {
                    end++;
                }
                series.add(line.substring(0, end));
            }
        }
    }

    /** Every PromQL expression: "where" (panel and refId, variable, rule) to the expression. */
    private static Map<String, String> expressions()
    {
        final Map<String, String> result = new LinkedHashMap<>();
        for (final JsonNode p : allPanels())
        {
            for (final JsonNode t : p.path("targets"))
            {
                result.put("panel '" + p.path("title").asText() + "' " + t.path("refId").asText(), t.path("expr").asText());
            }
        }
        for (final JsonNode v : dashboard.path("templating").path("list"))
        {
            if (v.path("type").asText().equals("query"))
            {
                result.put("variable " + v.path("name").asText(), query(v));
            }
        }
        for (final JsonNode r : rules())
        {
            result.put("rule " + r.path(r.has("record") ? "record" : "alert").asText(), r.path("expr").asText());
        }
        assertFalse(result.isEmpty());
        return result;
    }

    private static List<JsonNode> rules()
    {
        final List<JsonNode> result = new ArrayList<>();
        rules.path("groups").forEach(g -> g.path("rules").forEach(result::add));
        return result;
    }

    /** Top-level panels and rows, and the panels inside collapsed rows. */
    private static List<JsonNode> allPanels()
    {
        final List<JsonNode> result = new ArrayList<>();
        for (final JsonNode p : dashboard.path("panels"))
        {
            result.add(p);
            p.path("panels").forEach(result::add);
        }
        return result;
    }

    /** A query variable's query: a string (older model) or {"query": ...}. */
    private static String query(final JsonNode variable)
    {
        final JsonNode q = variable.path("query");
        return q.isTextual() ? q.asText() : q.path("query").asText();
    }
}
