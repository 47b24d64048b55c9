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
        assertEquals("04" + "00" + "0000" + "01000000" + "40000000" + "0300000000000000" +
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
        assertEquals("cluster map of format 1: this build reads formats 3 and 4", ex.getMessage());
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

    private static ClusterMap segmented(final int partitions, final int nodeCount, final String hostPrefix)
    {
        final List<ClusterNode> nodes = new java.util.ArrayList<>();
        final List<io.rdmakv.common.cluster.ReplicaGroup> groups = new java.util.ArrayList<>();
        for (int n = 0; n < nodeCount; n++)
        {
            nodes.add(new ClusterNode(n, hostPrefix + (n >> 8) + "." + (n & 0xFF), 7400));
        }
        for (int g = 0; g < nodeCount / 2; g++)
        {
            groups.add(new io.rdmakv.common.cluster.ReplicaGroup(g, new int[] {2 * g, 2 * g + 1}, new int[0], false));
        }
        final int[] partitionGroups = new int[partitions];
        final long[] segments = new long[partitions];
        for (int p = 0; p < partitions; p++)
        {
            partitionGroups[p] = p % groups.size();
            // the largest fields a segment may hold, so that the length is the worst case
            segments[p] = io.rdmakv.common.hash.KeyHash.segment(0xFFFF_FFFFL - 3 - p, 3 + p);
        }
        return new ClusterMap(9, 8, partitions, nodes, 2, groups, partitionGroups, segments);
    }

    @Test
    void aSegmentTableRoundTripsInBinaryAndJson()
    {
        final ClusterMap map = segmented(6, 4, "10.0.");
        assertTrue(map.hasSegments());
        final byte[] bytes = ClusterMapCodec.encode(map);
        assertEquals(bytes.length, ClusterMapCodec.encodedLength(map));
        final ClusterMap back = ClusterMapCodec.decode(bytes);
        assertEquals(map, back);
        assertEquals(io.rdmakv.common.hash.KeyHash.segment(0xFFFF_FFFFL - 3 - 5, 8), back.segmentOf(5));
        assertEquals(map, ClusterMap.fromJson(map.toJson()));
        assertTrue(map.toJson().contains("\"segments\":[4294967292,3,4294967291,4,"), map.toJson());
        // a map without a table says so and round-trips without one
        final ClusterMap plain = map.withSegments(null);
        assertFalse(plain.hasSegments());
        assertEquals(io.rdmakv.common.hash.KeyHash.WHOLE_INDEX, plain.segmentOf(0));
        assertEquals(plain, ClusterMapCodec.decode(ClusterMapCodec.encode(plain)));
        assertEquals(plain, ClusterMap.fromJson(plain.toJson()));
        assertFalse(plain.toJson().contains("segments"));
        assertEquals(ClusterMapCodec.encodedLength(map) - 6 * 8, ClusterMapCodec.encodedLength(plain));
        assertFalse(plain.equals(map));
        assertFalse(plain.placesLike(map), "a segment changed places data differently");
    }

    @Test
    void refusesMalformedSegmentFields()
    {
        final ClusterMap map = segmented(6, 4, "10.0.");
        final byte[] bytes = ClusterMapCodec.encode(map);
        final int flags = ClusterMapCodec.NODES_OFFSET + 4 * (8 + "10.0.0.0".length()) + 1;
        assertEquals(1, bytes[flags]);
        // a reserved flag bit
        malformed(patched(bytes, flags, 3), Kind.BAD_FIELD);
        // the flag cleared: the table reads as 2-byte entries, and the bytes after it do not make a map
        final Kind cleared = assertThrows(MalformedMessageException.class,
            () -> ClusterMapCodec.decode(patched(bytes, flags, 0))).kind();
        assertTrue(cleared == Kind.BAD_LENGTH || cleared == Kind.BAD_FIELD || cleared == Kind.OVERSIZED, cleared.name());
        // the flag set on a map without a table: too short
        final byte[] plain = ClusterMapCodec.encode(map.withSegments(null));
        malformed(patched(plain, flags, 1), Kind.BAD_LENGTH);
        // partition 0's entry: group u16, base u32, count u32; a count that ends past 2^32 groups (format 4: the
        // table is followed by the move sections, 6 bytes when empty)
        final int entry0 = bytes.length - 6 - 6 * 10;
        final MalformedMessageException past = malformed(patched(bytes, entry0 + 6, 0xFF, 0, 0, 0), Kind.BAD_FIELD);
        assertTrue(past.getMessage().contains("segment of partition 0"), past.getMessage());
        // a group index past the groups, with segments present
        malformed(patched(bytes, entry0, 9, 0), Kind.BAD_FIELD);
        // every truncation is refused as such
        for (int length = 0; length < bytes.length; length++)
        {
            final byte[] cut = Arrays.copyOf(bytes, length);
            final Kind kind = assertThrows(MalformedMessageException.class, () -> ClusterMapCodec.decode(cut)).kind();
            assertTrue(kind == Kind.BAD_LENGTH || kind == Kind.OVERSIZED, length + ": " + kind);
        }
        // random damage: only malformed messages, or maps that round-trip
        final Random random = new Random(23);
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] damaged = bytes.clone();
            damaged[bytes.length - 1 - random.nextInt(6 + 6 * 10 + 4)] = (byte)random.nextInt();
            try
            {
                final ClusterMap decoded = ClusterMapCodec.decode(damaged);
                assertEquals(decoded, ClusterMapCodec.decode(ClusterMapCodec.encode(decoded)));
            }
            catch (final MalformedMessageException expected)
            {
                // the only way to refuse
            }
        }
        // JSON: the wrong length, a negative or oversized field, segments without groups
        final String json = map.toJson();
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"segments\":[4294967292,3,", "\"segments\":[")));
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"segments\":[4294967292,", "\"segments\":[-1,")));
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"segments\":[4294967292,3,", "\"segments\":[4294967296,3,")));
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"segments\":[4294967292,3,", "\"segments\":[4294967294,3,")));
        assertThrows(io.rdmakv.common.cluster.InvalidClusterMapException.class, () -> ClusterMap.fromJson(
            "{\"epoch\": 1, \"segments\": [0, 2], \"partitions\": 1, \"nodes\": [{\"id\": 0, \"host\": \"h\", \"port\": 1}]}"));
    }

    @Test
    void fourThousandPartitionsWithSegmentsFitHelloOkBesideTwoHundredFiftySixNodes()
    {
        // dotted IPv4 hosts of up to 15 bytes: 32 + 4096 * 10 + 128 groups * 12 + 256 * (8 + 15) + 6 (no moves) =
        // 48,422 bytes
        final ClusterMap ipv4 = segmented(4096, 256, "192.168.");
        assertEquals(48_422 - 256 * 15 + ipv4.nodes().stream().mapToInt(n -> n.host().length()).sum(),
            ClusterMapCodec.encodedLength(ipv4));
        assertTrue(ClusterMapCodec.encodedLength(ipv4) <= HelloOkMessage.MAX_CLUSTER_MAP_LENGTH);
        assertEquals(ipv4, ClusterMapCodec.decode(ClusterMapCodec.encode(ipv4)));
        // and hosts of up to 79 bytes each ("nnn...n0.255"), as the codec's javadoc says
        final ClusterMap named = segmented(4096, 256, "n".repeat(79 - "0.255".length()));
        assertEquals(79, named.nodes().stream().mapToInt(n -> n.host().length()).max().orElseThrow());
        assertTrue(ClusterMapCodec.encodedLength(named) <= HelloOkMessage.MAX_CLUSTER_MAP_LENGTH,
            "256 hosts of up to 79 bytes: " + ClusterMapCodec.encodedLength(named) + " of " +
            HelloOkMessage.MAX_CLUSTER_MAP_LENGTH);
        assertTrue(HelloOkMessage.MAX_CLUSTER_MAP_LENGTH >= 38 + 4096 * 10 + 128 * 12 + 256 * (8 + 79),
            "limit " + HelloOkMessage.MAX_CLUSTER_MAP_LENGTH);
    }
}
