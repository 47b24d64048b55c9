package io.rdmakv.kvctl;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvctl rebalance}'s flags and the request it builds, checked before anything is sent (a bad flag is exit 2
 * even with no node to reach), and {@code kvctl cluster}'s lines for moves. What a node does with the request is
 * {@code ZkRebalanceDeskTest}'s (server) and {@code KvCtlTest}'s (system-tests).
 */
class RebalanceCommandTest
{
    /** What one kvctl run printed and returned. */
    record Run(int code, String out, String err)
    {
    }

    /** kvctl against a port nobody listens on: a request that got as far as connecting is exit 3. */
    private static Run kvctl(final String... args) throws IOException
    {
        final int nobody;
        try (ServerSocket s = new ServerSocket(0))
        {
            nobody = s.getLocalPort();
        }
        final List<String> all = new ArrayList<>(List.of("--hosts", "127.0.0.1:" + nobody, "--transport", "tcp",
            "--timeout-ms", "2000"));
        Collections.addAll(all, args);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), Map.of(), all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void parsesPartitionsAndAGroup()
    {
        final MoveSpec spec = MoveSpec.parse("3,5:1", 0);
        assertArrayEquals(new int[] {3, 5}, spec.partitions());
        assertEquals(1, spec.target());
        assertEquals(0, spec.groups());
        assertEquals(new MoveSpec(new int[] {7}, 0, 64), MoveSpec.parse(" 7 : 0 ", 64));
    }

    @Test
    void refusesABadMoveSayingWhatIsWrong()
    {
        assertRefused("3,5", "expected P[,P...]:GROUP");
        assertRefused(":1", "expected P[,P...]:GROUP");
        assertRefused("3:", "expected P[,P...]:GROUP");
        assertRefused("1:2:3", "expected P[,P...]:GROUP");
        assertRefused("a:1", "partition 'a' is not a non-negative integer");
        assertRefused("3,:1", "partition '' is not a non-negative integer");
        assertRefused("-3:1", "partition '-3' is not a non-negative integer");
        assertRefused("3:g1", "group 'g1' is not a non-negative integer");
        assertRefused("3:99999999999", "group '99999999999' is not");
        assertRefused("3,5,3:1", "partition 3 named twice");
        final IllegalArgumentException one = assertThrows(IllegalArgumentException.class, () -> MoveSpec.parse("3:1", 1));
        assertTrue(one.getMessage().contains("--groups 1"), one.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MoveSpec.parse("3:1", -2));
    }

    private static void assertRefused(final String move, final String says)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MoveSpec.parse(move, 0));
        assertTrue(e.getMessage().startsWith("--move '" + move + "': ") && e.getMessage().contains(says),
            e.getMessage());
    }

    @Test
    void buildsTheRequestTheCoordinatorReads()
    {
        assertEquals("{\"moves\":[{\"partitions\":[3,5],\"target\":1},{\"partitions\":[2],\"target\":0,\"groups\":64}]," +
            "\"cancel\":[7001]}", RebalanceCommand.requestJson(List.of(MoveSpec.parse("3,5:1", 0),
            MoveSpec.parse("2:0", 64)), List.of(7001L)));
        assertEquals("{\"moves\":[],\"cancel\":[7001,8002]}", RebalanceCommand.requestJson(List.of(),
            List.of(7001L, 8002L)));
        final IllegalArgumentException nothing = assertThrows(IllegalArgumentException.class,
            () -> RebalanceCommand.requestJson(List.of(), List.of()));
        assertTrue(nothing.getMessage().contains("at least one --move"), nothing.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RebalanceCommand.requestJson(List.of(), List.of(-1L)));
    }

    @Test
    void aRequestOverOneMessageIsRefusedBeforeItIsSent()
    {
        final int[] many = new int[1000];
        for (int i = 0; i < many.length; i++)
        {
            many[i] = 1000 + i;
        }
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RebalanceCommand.requestJson(List.of(new MoveSpec(many, 1, 0)), List.of()));
        assertTrue(e.getMessage().contains("over the " + RebalanceMessage.MAX_JSON_LENGTH), e.getMessage());
    }

    @Test
    void badFlagsAreExitTwoAndNothingIsSent() throws IOException
    {
        final Run syntax = kvctl("rebalance", "--move", "3-5:1");
        assertEquals(KvCtl.USAGE, syntax.code(), syntax.err());
        assertEquals("kvctl: --move '3-5:1': partition '3-5' is not a non-negative integer\n", syntax.err());
        assertEquals(KvCtl.USAGE, kvctl("rebalance").code(), "asks nothing");
        assertEquals(KvCtl.USAGE, kvctl("rebalance", "--cancel", "seven").code());
        assertEquals(KvCtl.USAGE, kvctl("rebalance", "--groups", "64").code(), "--groups without --move");
        assertEquals(KvCtl.USAGE, kvctl("rebalance", "--move", "3:1", "--groups", "1").code());
        final Run json = kvctl("--json", "rebalance", "--move", "3:", "--dry-run");
        assertEquals(KvCtl.USAGE, json.code());
        assertTrue(json.out().contains("\"exitCode\" : 2"), json.out());
        // the same command with good flags does try to reach a node: the refusals above came first
        final Run good = kvctl("rebalance", "--move", "3,5:1", "--groups", "64", "--move", "4:0", "--cancel", "7001",
            "--dry-run");
        assertEquals(KvCtl.UNREACHABLE, good.code(), good.err());
        final Run cancelOnly = kvctl("rebalance", "--cancel", "7001");
        assertEquals(KvCtl.UNREACHABLE, cancelOnly.code(), cancelOnly.err());
    }

    @Test
    void theGrowthSwitchTakesOnOffOrStatusAndNoMoves() throws IOException
    {
        assertEquals("{\"auto\":\"on\"}", RebalanceCommand.autoJson("on", false));
        assertEquals("{\"auto\":\"off\"}", RebalanceCommand.autoJson(" OFF ", false));
        assertEquals("{\"auto\":\"status\"}", RebalanceCommand.autoJson("status", false));
        final Run word = kvctl("rebalance", "--auto", "yes");
        assertEquals(KvCtl.USAGE, word.code(), word.err());
        assertEquals("kvctl: --auto 'yes': on, off or status\n", word.err());
        final Run both = kvctl("rebalance", "--auto", "on", "--cancel", "7");
        assertEquals(KvCtl.USAGE, both.code(), both.err());
        assertTrue(both.err().contains("cannot come with --move or --cancel"), both.err());
        assertEquals(KvCtl.USAGE, kvctl("rebalance", "--auto").code(), "a setting is required");
        final Run good = kvctl("rebalance", "--auto", "status");
        assertEquals(KvCtl.UNREACHABLE, good.code(), "a good switch request tries to reach a node: " + good.err());
    }

    @Test
    void clusterListsBatchesAndRetiredSegments()
    {
        final List<ClusterNode> nodes = List.of(new ClusterNode(0, "10.0.0.0", 7400),
            new ClusterNode(1, "10.0.0.1", 7400));
        final long[] segments = {KeyHash.segment(0, 8), KeyHash.segment(0, 8), KeyHash.segment(8, 8),
            KeyHash.segment(8, 8)};
        final ClusterMap map = new ClusterMap(14, 14, 4, nodes, 1, List.of(
                new ReplicaGroup(0, new int[] {0}, new int[0], false),
                new ReplicaGroup(1, new int[] {1}, new int[0], false)),
            new int[] {0, 1, 0, 1}, segments, new MapMoves(List.of(
                new MoveBatch(12_000, 0, 1, MovePhase.FREEZE, 13, new int[] {2, 0},
                    new long[] {KeyHash.segment(16, 8), KeyHash.segment(24, 8)})),
            List.of(new RetiredSegment(0, 3, KeyHash.segment(40, 8), 11, 10_000))));
        assertEquals("batch 12000  partitions [2, 0]  group 0 -> group 1  FREEZE since epoch 13\n" +
            "group 0 retired partition 3 segment (40,8) at epoch 11\n", ClusterCommand.moves(map));
        assertEquals("", ClusterCommand.moves(new ClusterMap(14, 14, 4, nodes, 1, map.groups(),
            new int[] {0, 1, 0, 1}, segments)));

        // how far it has come, asked of the target's primary (node 1) and the source's (node 0)
        final ClusterCommand.Progress both = node -> node == 1 ?
            new StatsOkMessage.MoveProgress(12_000, 1_186, 118_713_856, -1, -1) :
            new StatsOkMessage.MoveProgress(-1, 0, 0, 12_000, 1_215);
        assertEquals("batch 12000  partitions [2, 0]  group 0 -> group 1  FREEZE since epoch 13  copied 1186 keys " +
            "(118713856 bytes) of 1215 on the source (about 97%)\n" +
            "group 0 retired partition 3 segment (40,8) at epoch 11\n", ClusterCommand.moves(map, both));
        final com.fasterxml.jackson.databind.node.ArrayNode json =
            new com.fasterxml.jackson.databind.ObjectMapper().createArrayNode();
        ClusterCommand.progressJson(map, both, json);
        assertEquals("[{\"batch\":12000,\"keysCopied\":1186,\"bytesCopied\":118713856,\"sourceKeys\":1215}]",
            json.toString());
        // a copy counts a key again when a later pass copies it again: never above 100%
        assertTrue(ClusterCommand.progressText(map, map.moves().batches().getFirst(), node -> node == 1 ?
            new StatsOkMessage.MoveProgress(12_000, 1_300, 1, -1, -1) :
            new StatsOkMessage.MoveProgress(-1, 0, 0, 12_000, 1_215)).endsWith("(about 100%)"));
        // a source that has not counted yet, a target copying another batch, a primary that does not answer
        assertEquals("copied 1186 keys (118713856 bytes)", ClusterCommand.progressText(map,
            map.moves().batches().getFirst(), node -> node == 1 ?
                new StatsOkMessage.MoveProgress(12_000, 1_186, 118_713_856, -1, -1) :
                new StatsOkMessage.MoveProgress(-1, 0, 0, 12_000, StatsOkMessage.MoveProgress.UNKNOWN)));
        assertEquals("the source holds 1215 keys", ClusterCommand.progressText(map, map.moves().batches().getFirst(),
            node -> node == 1 ? new StatsOkMessage.MoveProgress(11_000, 5, 5, -1, -1) :
                new StatsOkMessage.MoveProgress(-1, 0, 0, 12_000, 1_215)));
        assertEquals("progress unknown", ClusterCommand.progressText(map, map.moves().batches().getFirst(), node ->
        {
            throw new io.rdmakv.client.KvConnectionException("node " + node + " does not answer");
        }));
    }
}
