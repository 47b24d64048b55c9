package io.rdmakv.common.protocol;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/** One valid message of every type, for round trips and for corrupting. */
final class Samples
{
    static final QueuePairEndpoint CLIENT = QueuePairEndpoint.tcp(17, 99, "client-host", 7001, 0x0123_4567_89ab_cdefL);
    static final QueuePairEndpoint SERVER = new QueuePairEndpoint(
        "ibverbs", 0x1234, 0x55, 3, new byte[] {(byte)0xfe, (byte)0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, 5, "",
        0);
    static final RegionGeometry GEOMETRY = RegionGeometry.forMemory(64L << 20);
    static final ClusterMap MAP = ClusterMap.of(
        3, List.of(new ClusterNode(0, "10.0.0.1", 7400), new ClusterNode(1, "10.0.0.2", 7400)));

    private Samples()
    {
    }

    static HelloOkMessage helloOk()
    {
        return new HelloOkMessage(
            2, 1, SERVER, new RemoteRegion(0x7f00_0000_0000L, GEOMETRY.headerAndIndexLength(), 0x1111),
            new RemoteRegion(0x7f00_0000_0000L + GEOMETRY.dataOffset(), GEOMETRY.dataLength(), 0x2222), GEOMETRY,
            MAP, 0x5E55_1000L, 100_000_000L, 500);
    }

    /** {@link #helloOk()} of a node whose clients send their index CASes as SLOT_CAS. */
    static HelloOkMessage helloOkNodeAssisted()
    {
        final HelloOkMessage ok = helloOk();
        return new HelloOkMessage(ok.requestId(), ok.protocolVersion(), ok.nodeId(), ok.serverEndpoint(),
            ok.indexRegion(), ok.dataRegion(), ok.geometry(), ok.clusterMap(), ok.sessionId(), ok.graceNanos(),
            ok.heartbeatIntervalMs(), HelloOkMessage.NODE_ASSISTED_WRITES, null);
    }

    /** {@link #helloOk()} with a map area (an rkey with its top bit set). */
    static HelloOkMessage helloOkWithMapArea()
    {
        final HelloOkMessage ok = helloOk();
        return new HelloOkMessage(ok.requestId(), ok.protocolVersion(), ok.nodeId(), ok.serverEndpoint(),
            ok.indexRegion(), ok.dataRegion(), ok.geometry(), ok.clusterMap(), ok.sessionId(), ok.graceNanos(),
            ok.heartbeatIntervalMs(), 0, null, new RemoteRegion(0x7f10_0000_1000L,
            io.rdmakv.common.layout.MapAreaDescriptor.LENGTH, 0x8000_3333));
    }

    static final byte[] CM_TOKEN = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");

    /** {@link #helloOk()} telling the client to connect through rdma_cm at 10.77.0.1:4791. */
    static HelloOkMessage helloOkThroughRdmaCm()
    {
        final HelloOkMessage ok = helloOk();
        try
        {
            return new HelloOkMessage(ok.requestId(), ok.protocolVersion(), ok.nodeId(), ok.serverEndpoint(),
                ok.indexRegion(), ok.dataRegion(), ok.geometry(), ok.clusterMap(), ok.sessionId(), ok.graceNanos(),
                ok.heartbeatIntervalMs(), 0,
                new CmTicket(java.net.InetAddress.getByName("10.77.0.1"), 4791, CM_TOKEN));
        }
        catch (final java.net.UnknownHostException e)
        {
            throw new IllegalStateException(e);
        }
    }

    static List<ControlMessage> all()
    {
        return List.of(
            new HelloMessage(1, "secret".getBytes(StandardCharsets.UTF_8), CLIENT),
            new HelloMessage(1, null, SERVER),
            new HelloMessage(1, -7L, new byte[0], CLIENT),
            new FenceWritersMessage(21, new long[] {1, -1L, 0x1234_5678_9ABC_DEF0L}),
            new FenceWritersOkMessage(22, 3),
            new ScrubMessage(23),
            new ScrubOkMessage(24, 2, 1L << 20, 5000, 1, 2, 4, 3, 0, 123_456_789L),
            new RebalanceMessage(36, false, "{\"moves\":[{\"partitions\":[3,5],\"target\":1}],\"cancel\":[]}"),
            new RebalanceMessage(37, true, "{\"cancel\":[7001]}"),
            new RebalanceOkMessage(38, RebalanceOkMessage.Outcome.REQUESTED, "requested"),
            new RebalanceOkMessage(39, RebalanceOkMessage.Outcome.WOULD_WAIT, "cannot move [3] -> group 9: no group 9"),
            new RebalanceOkMessage(40, RebalanceOkMessage.Outcome.WOULD_ACT, ""),
            helloOk(),
            helloOkNodeAssisted(),
            helloOkThroughRdmaCm(),
            helloOkWithMapArea(),
            CodedRefusalMessage.helloRefused(3, ReasonCode.AUTH_FAILED, "bad token"),
            new AllocMessage(4, 1 << 20),
            new AllocOkMessage(5, 64L << 20, 1 << 20, 0x8000_12AB),
            new AllocOkMessage(5, 64L << 20, 1 << 20, 0x8000_12AB, 0x5EC2_E7L),
            GrantMessage.bind(25, 0x5E55_1000L, 64L << 20, 1 << 20, -3L),
            GrantMessage.check(26, 0x1234_5678_9ABC_DEF0L, GrantMessage.bind(25, 7, 64, 4096, 1)),
            GrantMessage.revoke(27, 7, 0x5EC2_E7L),
            GrantReplyMessage.bound(28, 0x8000_12AB),
            GrantReplyMessage.checked(29, true),
            GrantReplyMessage.checked(30, false),
            GrantReplyMessage.revoked(31, 2),
            new SlotCasMessage(32, new long[] {4096 + 72}, new long[] {0}, new long[] {0x2A00_4000_0000_0040L}),
            new SlotCasMessage(33, new long[] {4096 + 8, 4096 + 64}, new long[] {0, 0x5E55_1000L},
                new long[] {-1L, 0}),
            new SlotCasReplyMessage(34, new long[] {0}),
            new SlotCasReplyMessage(35, new long[SlotCasMessage.MAX_ENTRIES]),
            CodedRefusalMessage.allocFailed(6, ReasonCode.OUT_OF_MEMORY, "no free chunk"),
            new FreeMessage(7, new long[] {64, 4096, 1L << 40}, new int[] {64, 128, 262080}),
            new StatsMessage(8),
            new StatsOkMessage(9, 100, 40, 60, 5, 700, 2, 3, 2),
            new StatsOkMessage(9, 100, 40, 60, 5, 700, 2, 3, StatsOkMessage.NO_WINDOWS,
                new StatsOkMessage.MoveProgress(41_000, 1_186, 118_713_856, 39_000, 1_215)),
            new ByeMessage(10),
            new ShutdownMessage(0),
            new HeartbeatMessage(42, 7),
            new HeartbeatMessage(43, Long.MAX_VALUE),
            CodedRefusalMessage.error(11, ReasonCode.UNEXPECTED_MESSAGE, "ALLOC before HELLO"),
            CodedRefusalMessage.error(-1L, 999, ""),
            new RepairMessage(12, 4095, 13, 0x2A00_4000_0000_0040L, "victim".getBytes(StandardCharsets.UTF_8)),
            new RepairMessage(13, 0, 0, -1L, new byte[0]),
            new HelpMessage(14, 77, 3, 0x2A00_4000_0000_0040L, 0x2A00_4000_0000_0080L,
                "stuck".getBytes(StandardCharsets.UTF_8)),
            new HelpMessage(15, 0, 13, 0L, -1L, new byte[0]),
            new HelpReplyMessage(16, HelpReplyMessage.Outcome.HELPED, 0x2A00_4000_0000_0080L),
            new HelpReplyMessage(17, HelpReplyMessage.Outcome.REFUSED, 0L),
            new HelpReplyMessage(18, HelpReplyMessage.Outcome.CHANGED, -1L),
            RepairReplyMessage.repaired(14, 4, "cleared"),
            RepairReplyMessage.retry(15, 4, 100, "wait out the grace period"),
            RepairReplyMessage.refused(16, 0, RepairRefusal.NOT_DAMAGED, "the block is whole"),
            new RepairReplyMessage(17, RepairReplyMessage.Outcome.REFUSED, 9, 999, 0, ""),
            new DamageScanMessage(18, 1024, 4096),
            new DamageScanOkMessage(19, 0, 512, 4096, List.of()),
            new DamageScanOkMessage(20, 7, 9, 9, List.of(
                new DamageScanOkMessage.Entry(7, 3, 0x11L, 1, -1, new byte[0]),
                new DamageScanOkMessage.Entry(8, 13, -2L, 4, 6, "victim".getBytes(StandardCharsets.UTF_8)),
                new DamageScanOkMessage.Entry(8, 0, 5L, 2, 1000, new byte[DamageScanOkMessage.MAX_KEY_SHOWN]))));
    }
}
