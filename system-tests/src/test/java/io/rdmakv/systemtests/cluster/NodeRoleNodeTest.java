package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.cluster.ReplicaRole;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real node of a ZooKeeper cluster, without ZooKeeper: its {@link NodeRole} is handed maps by hand, as
 * membership would. HELLO refused while no map lists the node; sessions of an older epoch fenced when a newer
 * one is applied; a node that becomes primary rebuilds its allocator from its index, so its grants avoid every
 * block its slots reference, also blocks its own allocator never granted (a backup's, written by clients at
 * offsets its primary granted).
 */
class NodeRoleNodeTest
{
    private static final int ME = 0;
    private static final int OTHER = 9;
    private static final int PARTITIONS = 64;

    private KvServer server;
    private NodeRole role;

    private KvServer start()
    {
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.MEMORY).toBuilder()
            .zookeeper(new ServerConfig.ZooKeeper("127.0.0.1:2181", "node-role-test", 2, 4000))
            .sessionQuotaBytes(1L << 40).build());
        role = new NodeRole(server, (primary, epoch) -> 0, (group, epoch, finalPass) -> { });
        return server;
    }

    @AfterEach
    void stop()
    {
        if (role != null)
        {
            role.close();
        }
        if (server != null)
        {
            server.close();
        }
    }

    /** A map of one group whose members are {@code members}, primary first; node 9 is listed but unreachable. */
    private ClusterMap map(final long epoch, final int... members)
    {
        return new ClusterMap(epoch, PARTITIONS, List.of(new ClusterNode(ME, "127.0.0.1", server.port()),
            new ClusterNode(OTHER, "127.0.0.1", 1)), 2, List.of(new ReplicaGroup(0, members, null, false)),
            new int[PARTITIONS]);
    }

    @Test
    void aNodeInNoMapRefusesHelloWithNotInClusterAndIsNotReady()
    {
        start();
        assertNull(server.clusterMap());
        assertFalse(role.inMap());
        final AssertionError refused = assertThrows(AssertionError.class, () -> new RawSession(server.port()).close());
        assertTrue(refused.getMessage().contains("code=" + ReasonCode.NOT_IN_CLUSTER.code()) &&
            refused.getMessage().contains("is in no cluster map"), refused.getMessage());

        role.onMap(map(1, ME));
        assertTrue(role.inMap());
        try (RawSession session = new RawSession(server.port()))
        {
            assertEquals(map(1, ME), session.hello().clusterMap(), "HELLO_OK carries the map applied");
        }

        role.onMap(new ClusterMap(2, PARTITIONS, List.of(new ClusterNode(OTHER, "127.0.0.1", 1)), 1,
            List.of(ReplicaGroup.single(OTHER)), filled(OTHER)));
        assertFalse(role.inMap(), "removed from the map");
        assertEquals(ReplicaRole.NONE, role.role());
        assertThrows(AssertionError.class, () -> new RawSession(server.port()).close());
    }

    private static int[] filled(final int group)
    {
        final int[] ids = new int[PARTITIONS];
        java.util.Arrays.fill(ids, group);
        return ids;
    }

    /** {@link #map} with a spare listed too (node {@code SPARE}), at fence epoch {@code fence}. */
    private ClusterMap withSpare(final long epoch, final long fence, final int... members)
    {
        return new ClusterMap(epoch, fence, PARTITIONS, List.of(new ClusterNode(ME, "127.0.0.1", server.port()),
            new ClusterNode(OTHER, "127.0.0.1", 1), new ClusterNode(SPARE, "127.0.0.1", 2)), 2,
            List.of(new ReplicaGroup(0, members, null, false)), new int[PARTITIONS]);
    }

    private static final int SPARE = 7;

    @Test
    void aMapThatOnlyAddsASpareFencesNobodyAndTheClientKeepsItsSessions() throws Exception
    {
        start();
        role.onMap(map(1, ME));
        try (RawSession old = new RawSession(server.port());
             KvClient client = KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(server))))
        {
            final RemoteRegion index = old.hello().indexRegion();
            client.put(bytes("before"), bytes("1"));
            final int sessions = server.sessionCount();

            role.onMap(withSpare(2, 1, ME));
            assertEquals(WcStatus.SUCCESS, old.read(index.address(), index.rkey(), 64),
                "a spare joining (fence epoch still 1) fences no session of epoch 1");
            assertEquals(0, server.sessionsFencedByEpoch());
            assertEquals("1", text(client.get(bytes("before"))), "the client's session goes on");
            client.put(bytes("during"), bytes("2"));
            // a session opened now brings the map of epoch 2 in its HELLO_OK: the client takes it in place
            final Thread other = Thread.ofPlatform().start(() -> client.put(bytes("other"), bytes("3")));
            other.join();
            assertEquals(2, client.clusterMap().epoch(), "the client follows the map");
            assertEquals(1, client.clusterMap().fenceEpoch());
            assertEquals("2", text(client.get(bytes("during"))));
            assertEquals(sessions + 1, server.sessionCount(),
                "the other thread's session is the only new one: the first thread kept its own");

            role.onMap(withSpare(3, 3, ME, SPARE));
            assertNotEquals(WcStatus.SUCCESS, old.read(index.address(), index.rkey(), 64),
                "a new member fences every session of an older epoch");
            assertTrue(server.sessionsFencedByEpoch() >= 3, "the raw session and the client's two: " +
                server.sessionsFencedByEpoch());
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] b)
    {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void aNewEpochFencesSessionsOfOlderOnesAndNewSessionsWork()
    {
        start();
        role.onMap(map(1, ME));
        try (RawSession old = new RawSession(server.port()))
        {
            final RemoteRegion index = old.hello().indexRegion();
            assertEquals(WcStatus.SUCCESS, old.read(index.address(), index.rkey(), 64));

            role.onMap(map(2, ME, OTHER));
            assertNotEquals(WcStatus.SUCCESS, old.read(index.address(), index.rkey(), 64),
                "a session of epoch 1 is fenced once epoch 2 is applied");
            assertEquals(1, server.sessionsFencedByEpoch());
            try (RawSession fresh = new RawSession(server.port()))
            {
                assertEquals(2, fresh.hello().clusterMap().epoch());
                assertEquals(WcStatus.SUCCESS, fresh.read(index.address(), index.rkey(), 64));
            }
        }
    }

    @Test
    void aNodeThatBecomesPrimaryGrantsOnlySpaceNoSlotReferences()
    {
        start();
        assertTrue(server.memoryWindows(), "replicas 2: grants are written through windows, on backups too");
        role.onMap(map(1, ME));
        final List<byte[]> keys = new ArrayList<>();
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(server))))
        {
            for (int i = 0; i < 300; i++)
            {
                keys.add(key(i));
                client.put(key(i), value(i, 0));
            }
            for (int i = 0; i < 100; i++)
            {
                client.put(key(i), value(i, 1));
            }
            for (int i = 100; i < 150; i++)
            {
                final long version = client.getVersioned(key(i)).version();
                assertTrue(client.putIfVersion(key(i), value(i, 2), version));
            }
            for (int i = 250; i < 300; i++)
            {
                assertTrue(client.delete(key(i)));
            }
        }
        role.onMap(map(2, OTHER, ME));
        assertEquals(ReplicaRole.BACKUP, role.role());
        final List<Long> foreign = new ArrayList<>();
        try (RegionView view = new RegionView(server))
        {
            // blocks written as a primary's grants would place them on a backup: this node never granted them
            final RegionGeometry g = view.geometry();
            final Set<Long> usedGroups = new HashSet<>();
            view.usedSlots().forEach(s -> usedGroups.add((s.slotOffset() - g.indexOffset()) / BucketDescriptor.GROUP_LENGTH));
            long group = 0;
            for (int k = 1; k < 16; k++)
            {
                while (usedGroups.contains(group))
                {
                    group++;
                }
                final long offset = g.dataLength() / 16 * k & -KvBlockDescriptor.ALIGNMENT;
                view.swapSlot(new RegionView.Slot(g.slotRegionOffset(group, 0), SlotWord.EMPTY, 0, 0),
                    SlotWord.encodeBlock(1, offset, 256));
                foreign.add(offset);
                group++;
            }
        }
        role.onMap(map(3, ME));
        assertEquals(ReplicaRole.PRIMARY, role.role());
        assertEquals(2, role.failovers());

        try (RegionView view = new RegionView(server); RawSession session = new RawSession(server.port()))
        {
            final List<RegionView.Slot> live = view.usedSlots();
            assertEquals(250 + foreign.size(), live.size(), "every key and every foreign block is still referenced");
            final Set<String> stored = new HashSet<>();
            long liveBytes = 0;
            for (final RegionView.Slot slot : live)
            {
                stored.add(new String(view.keyOf(slot), StandardCharsets.UTF_8));
                liveBytes += SlotWord.blockLength(slot.word());
            }
            for (int i = 0; i < 250; i++)
            {
                assertTrue(stored.contains(new String(key(i), StandardCharsets.UTF_8)), "key " + i + " is stored");
            }
            long granted = 0;
            for (long request = 1; ; request++)
            {
                assertEquals(WcStatus.SUCCESS, session.send(new AllocMessage(request, KvBlockDescriptor.ALIGNMENT)));
                final ControlMessage reply = session.receive();
                if (CodedRefusalMessage.as(MessageType.ALLOC_FAILED, reply) instanceof CodedRefusalMessage failed)
                {
                    assertEquals(ReasonCode.OUT_OF_MEMORY.code(), failed.code(), failed.text());
                    break;
                }
                final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class, reply);
                for (final RegionView.Slot slot : live)
                {
                    final long block = SlotWord.blockOffset(slot.word());
                    assertTrue(block + SlotWord.blockLength(slot.word()) <= ok.chunkOffset() ||
                        block >= ok.chunkOffset() + ok.chunkLength(), "grant [" + ok.chunkOffset() + ", +" +
                        ok.chunkLength() + ") overlaps the block at " + block);
                }
                granted += ok.chunkLength();
            }
            assertEquals(view.geometry().dataLength() - KvBlockDescriptor.ALIGNMENT - liveBytes, granted,
                "every byte no slot references was free at once, none waits out a grace period");
        }
    }

    private static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int i, final int round)
    {
        return ("value-" + i + "-" + round).repeat(1 + i % 5).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aMapWhoseSegmentsDoNotFitTheIndexIsNotAppliedAndOneThatFitsIsServed() throws Exception
    {
        start();
        final long groups = server.geometry().groupCount();
        final long size = groups / PARTITIONS;
        final long[] segments = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++)
        {
            segments[p] = io.rdmakv.common.hash.KeyHash.segment(p * size, size);
        }
        final long[] past = segments.clone();
        past[PARTITIONS - 1] = io.rdmakv.common.hash.KeyHash.segment(groups - 1, 2);
        role.onMap(map(1, ME).withSegments(past));
        assertFalse(role.inMap(), "a segment past the index: the map is not applied");
        assertNull(server.clusterMap());
        role.onMap(map(2, ME).withSegments(segments));
        assertTrue(role.inMap());
        try (RawSession session = new RawSession(server.port());
             KvClient client = KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(server))))
        {
            assertEquals(map(2, ME).withSegments(segments), session.hello().clusterMap(), "HELLO_OK carries the table");
            for (int i = 0; i < 500; i++)
            {
                client.put(bytes("segmented-" + i), bytes("v" + i));
            }
            for (int i = 0; i < 500; i++)
            {
                assertEquals("v" + i, new String(client.get(bytes("segmented-" + i)), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
    }
}
