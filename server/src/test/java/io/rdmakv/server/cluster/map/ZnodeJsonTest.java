package io.rdmakv.server.cluster.map;

import io.rdmakv.server.cluster.zk.ZkOptions;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The znodes' JSON (strict: every mistake named) and the options' checks. */
class ZnodeJsonTest
{
    private static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void refused(final String expected, final Runnable parse)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, parse::run);
        assertTrue(e.getMessage().contains(expected), "\"" + e.getMessage() + "\" should say " + expected);
    }

    @Test
    void memberRoundTripsAndMistakesAreNamed()
    {
        final MemberInfo m = new MemberInfo(3, "10.0.0.3", 7400, MemberInfo.geometry(1L << 30, 4096), -42);
        assertEquals(m, MemberInfo.fromJson(m.toJson()));
        assertEquals("1073741824:4096", m.geometry());
        final String ok = "\"id\":3,\"host\":\"h\",\"port\":7400,\"geometry\":\"1:2\",\"incarnation\":1";
        assertEquals(3, MemberInfo.fromJson(utf8("{" + ok + "}")).id());
        refused("unknown field \"extra\"", () -> MemberInfo.fromJson(utf8("{" + ok + ",\"extra\":1}")));
        refused("\"port\" is missing", () -> MemberInfo.fromJson(utf8(
            "{\"id\":3,\"host\":\"h\",\"geometry\":\"1:2\",\"incarnation\":1}")));
        refused("not valid JSON", () -> MemberInfo.fromJson(utf8("{" + ok + ",\"id\":4}")));
        refused("not valid JSON", () -> MemberInfo.fromJson(utf8("{" + ok + "} {}")));
        refused("must be a JSON object", () -> MemberInfo.fromJson(utf8("[1]")));
        refused("\"incarnation\" must be an integer", () -> MemberInfo.fromJson(utf8(
            "{\"id\":3,\"host\":\"h\",\"port\":7400,\"geometry\":\"1:2\",\"incarnation\":\"x\"}")));
        refused("geometry", () -> new MemberInfo(3, "h", 7400, "1g", 1));
        refused("port", () -> new MemberInfo(3, "h", 0, "1:2", 1));
        refused("negative", () -> new MemberInfo(-1, "h", 1, "1:2", 1));
    }

    @Test
    void syncReportRoundTripsAndItsPhaseIsChecked()
    {
        final SyncReport r = new SyncReport(2, 0, 17, SyncPhase.FINAL);
        assertEquals(r, SyncReport.fromJson(2, r.toJson()));
        assertEquals("{\"group\":0,\"epoch\":17,\"phase\":\"final\"}", new String(r.toJson(), StandardCharsets.UTF_8));
        refused("neither \"bulk\" nor \"final\"", () -> SyncReport.fromJson(2,
            utf8("{\"group\":0,\"epoch\":17,\"phase\":\"done\"}")));
        refused("unknown field \"node\"", () -> SyncReport.fromJson(2,
            utf8("{\"group\":0,\"epoch\":17,\"phase\":\"bulk\",\"node\":2}")));
        refused("negative", () -> new SyncReport(2, -1, 1, SyncPhase.BULK));
    }

    @Test
    void configAndStoredMapAreChecked()
    {
        final ClusterSettings s = new ClusterSettings(3, 64);
        assertEquals(s, ClusterSettings.fromJson(s.toJson()));
        refused("replicas 6 outside 1..5", () -> ClusterSettings.fromJson(utf8("{\"replicas\":6,\"partitions\":64}")));
        refused("\"partitions\" is missing", () -> ClusterSettings.fromJson(utf8("{\"replicas\":2}")));
        final PlannerRun run = new PlannerRun(2, 4).join(0, 1);
        run.settle();
        final StoredMap stored = new StoredMap(run.map, run.incarnations);
        assertEquals(stored, StoredMap.fromJson(stored.toJson()));
        assertEquals(Map.of(0, 1000L, 1, 1001L), stored.incarnations());
        refused("incarnation key \"x\"", () -> StoredMap.fromJson(utf8(
            "{\"map\":" + run.map.toJson() + ",\"incarnations\":{\"x\":1}}")));
        refused("\"incarnations\" is missing", () -> StoredMap.fromJson(utf8("{\"map\":" + run.map.toJson() + "}")));
        refused("cluster map", () -> StoredMap.fromJson(utf8("{\"map\":{\"epoch\":1},\"incarnations\":{}}")));
    }

    @Test
    void optionsAreCheckedWithClearMessages()
    {
        final ZkOptions o = ZkOptions.of("zk:2181", "prod-1", 2);
        assertEquals(4000, o.sessionTimeoutMs());
        assertEquals(2000, o.settleMs());
        assertEquals(64, o.partitions());
        assertEquals("rdmakv/prod-1", o.namespace());
        assertEquals(1500, o.withSessionTimeoutMs(1500).sessionTimeoutMs());
        assertEquals(0, o.withSettleMs(0).settleMs());
        refused("--replicas 6 outside 1..5", () -> ZkOptions.of("zk:2181", "c", 6));
        refused("--replicas 0 outside 1..5", () -> ZkOptions.of("zk:2181", "c", 0));
        refused("--zookeeper", () -> ZkOptions.of(" ", "c", 1));
        refused("--cluster-name \"a/b\"", () -> ZkOptions.of("zk:2181", "a/b", 1));
        refused("--cluster-name \"..\"", () -> ZkOptions.of("zk:2181", "..", 1));
        refused("--zk-session-timeout-ms 10", () -> o.withSessionTimeoutMs(10));
        refused("partitions 0", () -> new ZkOptions("zk:2181", "c", 1, 0, 4000, 2000));
        refused("settle", () -> o.withSettleMs(-1));
    }

    /** The map znode (map, incarnations, previous) of a 4096-partition cluster of {@code nodes} nodes of {@code memory}. */
    private static int mapZnodeBytes(final int nodes, final long memory)
    {
        final java.util.List<MemberInfo> live = new java.util.ArrayList<>();
        for (int id = 0; id < nodes; id++)
        {
            live.add(new MemberInfo(id, "10.0." + (id >> 8) + "." + (id & 0xFF), 7400,
                MemberInfo.geometry(memory, 1 << 18), 1_000_000_007L * (id + 1)));
        }
        final MapPlanner.Plan created = MapPlanner.next(null, Map.of(), 2, 4096, live, java.util.List.of(), true);
        live.remove(0);
        final MapPlanner.Plan next = MapPlanner.next(created.map(), created.incarnations(), 2, 4096, live,
            java.util.List.of(), true);
        final byte[] json = next.stored().after(created.stored()).toJson();
        assertEquals(next.stored().after(created.stored()), StoredMap.fromJson(json));
        return json.length;
    }

    @Test
    void theMapZnodeOfFourThousandPartitionsWithSegmentsStaysWellUnderJuteMaxBuffer()
    {
        final int small = mapZnodeBytes(3, 16L << 20);
        final int large = mapZnodeBytes(3, 64L << 30);
        final int many = mapZnodeBytes(256, 64L << 30);
        System.out.println("map znode at 4096 partitions (map and previous): 3 nodes of 16 MiB " + small +
            " bytes, 3 nodes of 64 GiB " + large + " bytes, 256 nodes of 64 GiB " + many + " bytes");
        assertTrue(many < 256 * 1024, "a quarter of jute.maxbuffer's default 1 MiB: " + many);
    }
}
