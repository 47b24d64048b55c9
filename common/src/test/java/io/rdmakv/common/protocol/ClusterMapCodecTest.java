package io.rdmakv.common.protocol;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.MalformedMessageException.Kind;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class ClusterMapCodecTest
{
    private static final ClusterMap EXPLICIT = new ClusterMap(7, 4,
        List.of(new ClusterNode(9, "b.example", 7401), new ClusterNode(2, "ä.example", 65535)), new int[] {9, 9, 2, 9});

    private static MalformedMessageException malformed(final byte[] bytes, final Kind kind)
    {
        final MalformedMessageException ex =
            assertThrows(MalformedMessageException.class, () -> ClusterMapCodec.decode(bytes));
        assertEquals(kind, ex.kind(), ex.getMessage());
        return ex;
    }

    private static byte[] patched(final byte[] bytes, final int offset, final int... values)
    {
        final byte[] copy = bytes.clone();
        for (int i = 0; i < values.length; i++)
        {
            copy[offset + i] = (byte)values[i];
        }
        return copy;
    }

    @Test
    void roundTripsRoundRobinAndExplicitMaps()
    {
        for (final ClusterMap map : List.of(Samples.MAP, EXPLICIT,
            ClusterMap.of(0, List.of(new ClusterNode(Integer.MAX_VALUE, "::1", 1))),
            new ClusterMap(Long.MAX_VALUE, ClusterMap.MAX_PARTITIONS, List.of(new ClusterNode(0, "h", 1)), null)))
        {
            final byte[] bytes = ClusterMapCodec.encode(map);
            assertEquals(bytes.length, ClusterMapCodec.encodedLength(map));
            assertEquals(map, ClusterMapCodec.decode(bytes));
        }
    }

    @Test
    void encodesByteForByteWhereTheDiagramSays()
    {
        final ClusterMap map = ClusterMap.of(3, List.of(new ClusterNode(5, "ab", 0x1F40)));
        assertEquals("02" + "00" + "0000" + "01000000" + "40000000" + "0300000000000000" +
            "05000000" + "401f" + "0200" + "6162", HexFormat.of().formatHex(ClusterMapCodec.encode(map)));
        final byte[] explicit = ClusterMapCodec.encode(EXPLICIT);
        assertEquals(ClusterMapCodec.EXPLICIT, explicit[1]);
        // nodes in id order (2 then 9); the table holds indexes into them
        assertEquals("0100" + "0100" + "0000" + "0100", HexFormat.of().formatHex(
            Arrays.copyOfRange(explicit, explicit.length - 8, explicit.length)));
    }

    @Test
    void refusesEveryTruncationWithAMalformedMessage()
    {
        for (final ClusterMap map : List.of(Samples.MAP, EXPLICIT))
        {
            final byte[] bytes = ClusterMapCodec.encode(map);
            for (int length = 0; length < bytes.length; length++)
            {
                final byte[] cut = Arrays.copyOf(bytes, length);
                final Kind kind = assertThrows(MalformedMessageException.class, () -> ClusterMapCodec.decode(cut))
                    .kind();
                // a cut inside the nodes leaves too few bytes for the node count, checked before reading them
                assertTrue(kind == Kind.BAD_LENGTH || kind == Kind.OVERSIZED, length + ": " + kind);
            }
        }
    }

    @Test
    void refusesTrailingBytes()
    {
        final byte[] bytes = ClusterMapCodec.encode(Samples.MAP);
        assertEquals("cluster map has 1 bytes after its last field",
            malformed(Arrays.copyOf(bytes, bytes.length + 1), Kind.BAD_LENGTH).getMessage());
        malformed(Arrays.copyOf(ClusterMapCodec.encode(EXPLICIT), ClusterMapCodec.encode(EXPLICIT).length + 2),
            Kind.BAD_LENGTH);
    }

    @Test
    void refusesAnotherFormatNamingBoth()
    {
        final MalformedMessageException ex = malformed(patched(ClusterMapCodec.encode(Samples.MAP), 0, 1),
            Kind.BAD_VERSION);
        assertEquals("cluster map of format 1: this build reads format 2", ex.getMessage());
    }

    @Test
    void refusesBadFixedFields()
    {
        final byte[] bytes = ClusterMapCodec.encode(Samples.MAP);
        malformed(patched(bytes, 1, 3), Kind.BAD_FIELD);
        malformed(patched(bytes, 2, 1), Kind.BAD_FIELD);
        // counts that would allocate far more than the bytes carry
        malformed(patched(bytes, 4, 0xFF, 0xFF, 0xFF, 0xFF), Kind.OVERSIZED);
        malformed(patched(bytes, 4, 0, 0, 0, 0), Kind.OVERSIZED);
        malformed(patched(bytes, 4, 0xFF, 0xFF, 0, 0), Kind.OVERSIZED);
        malformed(patched(bytes, 8, 0, 0, 0, 0), Kind.OVERSIZED);
        malformed(patched(bytes, 8, 1, 0, 0, 0), Kind.OVERSIZED);
        malformed(patched(bytes, 8, 1, 0, 1, 0), Kind.OVERSIZED);
        malformed(patched(bytes, 8, 0xFF, 0xFF, 0xFF, 0xFF), Kind.OVERSIZED);
        final MalformedMessageException epoch = malformed(patched(bytes, 19, 0x80), Kind.BAD_FIELD);
        assertTrue(epoch.getMessage().contains("negative"), epoch.getMessage());
    }

    @Test
    void refusesBadNodes()
    {
        final byte[] bytes = ClusterMapCodec.encode(Samples.MAP);
        final int node = ClusterMapCodec.NODES_OFFSET;
        malformed(patched(bytes, node + 3, 0x80), Kind.BAD_FIELD);
        malformed(patched(bytes, node + 4, 0, 0), Kind.BAD_FIELD);
        malformed(patched(bytes, node + 6, 0, 0), Kind.OVERSIZED);
        malformed(patched(bytes, node + 6, 0, 1), Kind.OVERSIZED);
        malformed(patched(bytes, node + 6, 0xFF, 0xFF), Kind.OVERSIZED);
        malformed(patched(bytes, node + 8, 0xC3, 0x28), Kind.BAD_FIELD);
        malformed(patched(bytes, node + 8, ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '), Kind.BAD_FIELD);
        // node 1's id (1) lowered to node 0's: ids must ascend
        final int second = node + 8 + "10.0.0.1".length();
        assertTrue(malformed(patched(bytes, second, 0), Kind.BAD_FIELD).getMessage().contains("node #1 id 0"));
        // both nodes at one address
        malformed(patched(bytes, second + 8 + 7, '1'), Kind.BAD_FIELD);
    }

    @Test
    void refusesAnAssignmentOutsideTheNodes()
    {
        final byte[] bytes = ClusterMapCodec.encode(EXPLICIT);
        final MalformedMessageException ex = malformed(patched(bytes, bytes.length - 2, 2, 0), Kind.BAD_FIELD);
        assertEquals("cluster map assigns partition 3 to node index 2 of 2", ex.getMessage());
        // an explicit table that leaves a node without a partition is still a valid map: here node 2 has none
        final byte[] allOnNine = patched(bytes, bytes.length - 8, 1, 0, 1, 0, 1, 0, 1, 0);
        assertArrayEquals(new int[] {9, 9, 9, 9}, ClusterMapCodec.decode(allOnNine).assignment());
    }

    @Test
    void survivesRandomDamageWithMalformedMessagesOnly()
    {
        final Random random = new Random(11);
        final byte[] good = ClusterMapCodec.encode(EXPLICIT);
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] bytes = Arrays.copyOf(good, random.nextInt(good.length + 4));
            for (int flips = 1 + random.nextInt(3); flips > 0 && bytes.length > 0; flips--)
            {
                bytes[random.nextInt(bytes.length)] = (byte)random.nextInt();
            }
            try
            {
                final ClusterMap map = ClusterMapCodec.decode(bytes);
                assertEquals(map, ClusterMapCodec.decode(ClusterMapCodec.encode(map)));
            }
            catch (final MalformedMessageException expected)
            {
                // the only way to refuse
            }
            catch (final RuntimeException e)
            {
                fail("damaged map " + HexFormat.of().formatHex(bytes) + " threw " + e, e);
            }
        }
    }

    @Test
    void helloOkCarriesTheMapAndRefusesADamagedOne()
    {
        final HelloOkMessage ok = Samples.helloOk();
        assertEquals(Samples.MAP, ((HelloOkMessage)ControlCodec.fromBytes(ControlCodec.toBytes(ok))).clusterMap());
        final byte[] bytes = ControlCodec.toBytes(ok);
        final int mapAt = bytes.length - ClusterMapCodec.encodedLength(Samples.MAP);
        bytes[mapAt] = 9;
        final MalformedMessageException ex =
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(bytes));
        assertEquals(Kind.BAD_VERSION, ex.kind());
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).put(mapAt, (byte)ClusterMapCodec.FORMAT).putInt(mapAt + 4, 0);
        assertEquals(Kind.OVERSIZED,
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(bytes)).kind());
    }

    @Test
    void replicatedMapRoundTripsWithItsGroups()
    {
        final java.util.List<io.rdmakv.common.cluster.ClusterNode> nodes = java.util.List.of(
            new io.rdmakv.common.cluster.ClusterNode(1, "127.0.0.1", 7401),
            new io.rdmakv.common.cluster.ClusterNode(2, "127.0.0.1", 7402),
            new io.rdmakv.common.cluster.ClusterNode(3, "127.0.0.1", 7403));
        final io.rdmakv.common.cluster.ReplicaGroup group =
            new io.rdmakv.common.cluster.ReplicaGroup(7, new int[] {2, 1}, new int[] {3}, true);
        final io.rdmakv.common.cluster.ClusterMap map = new io.rdmakv.common.cluster.ClusterMap(
            5, 4, nodes, 2, java.util.List.of(group), new int[] {7, 7, 7, 7});
        final byte[] bytes = ClusterMapCodec.encode(map);
        assertEquals(bytes.length, ClusterMapCodec.encodedLength(map));
        final io.rdmakv.common.cluster.ClusterMap back = ClusterMapCodec.decode(bytes);
        assertEquals(map, back);
        assertEquals(2, back.nodeFor(3).id());
        assertEquals(group, back.groupFor(0));
        assertEquals(true, back.groupFor(0).sealed());
        assertEquals(map, io.rdmakv.common.cluster.ClusterMap.fromJson(map.toJson()));
        // a group naming a node index past the list
        final byte[] bad = bytes.clone();
        bad[bytes.length - 4 * 2 - 2] = 9;
        malformed(bad, Kind.BAD_FIELD);
    }

    @Test
    void aReplicatedMapCarriesItsFenceEpochAndRefusesOneAboveItsEpoch()
    {
        final java.util.List<io.rdmakv.common.cluster.ClusterNode> nodes = java.util.List.of(
            new io.rdmakv.common.cluster.ClusterNode(1, "127.0.0.1", 7401),
            new io.rdmakv.common.cluster.ClusterNode(2, "127.0.0.1", 7402));
        final io.rdmakv.common.cluster.ClusterMap map = new io.rdmakv.common.cluster.ClusterMap(9, 6, 4, nodes, 2,
            java.util.List.of(new io.rdmakv.common.cluster.ReplicaGroup(0, new int[] {1, 2}, new int[0], false)),
            new int[4]);
        final io.rdmakv.common.cluster.ClusterMap back = ClusterMapCodec.decode(ClusterMapCodec.encode(map));
        assertEquals(6, back.fenceEpoch());
        assertEquals(map, back);
        assertEquals(map, io.rdmakv.common.cluster.ClusterMap.fromJson(map.toJson()));
        assertTrue(map.toJson().contains("\"fence_epoch\":6"), map.toJson());
        assertEquals(9, map.withFenceEpoch(9).fenceEpoch());
        assertFalse(map.withFenceEpoch(9).toJson().contains("fence_epoch"), "a map fencing at its epoch says nothing");
        // fence_epoch sits after the group count: the 8 bytes before the first group
        final byte[] bytes = ClusterMapCodec.encode(map);
        final int at = ClusterMapCodec.NODES_OFFSET + 2 * (4 + 2 + 2 + "127.0.0.1".length()) + 4;
        assertEquals(6, java.nio.ByteBuffer.wrap(bytes, at, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong());
        final byte[] above = bytes.clone();
        above[at] = 10;
        malformed(above, Kind.BAD_FIELD);
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class,
            () -> map.withFenceEpoch(10));
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class, () ->
            io.rdmakv.common.cluster.ClusterMap.fromJson("{\"epoch\": 1, \"fence_epoch\": 1, \"nodes\": " +
                "[{\"id\": 0, \"host\": \"h\", \"port\": 1}]}"));
    }

    @Test
    void lostGroupHasNoPrimary()
    {
        final io.rdmakv.common.cluster.ClusterMap map = new io.rdmakv.common.cluster.ClusterMap(
            1, 2, java.util.List.of(new io.rdmakv.common.cluster.ClusterNode(1, "127.0.0.1", 7401)), 2,
            java.util.List.of(new io.rdmakv.common.cluster.ReplicaGroup(0, new int[0], new int[] {1}, false)),
            new int[] {0, 0});
        assertEquals(null, map.nodeFor(0));
        assertEquals(map, ClusterMapCodec.decode(ClusterMapCodec.encode(map)));
    }
}
