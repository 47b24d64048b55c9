package io.rdmakv.common.protocol;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.InvalidClusterMapException;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MalformedMessageException.Kind;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Move records and retired segments in the map: binary format 4 (format 3 still read), JSON, equality, fencing. */
class ClusterMapMovesTest
{
    /** Groups 3 and 5 of two nodes, 4 partitions alternating, segments of 8 groups from 0 on each. */
    private static ClusterMap base()
    {
        final List<ClusterNode> nodes = List.of(new ClusterNode(0, "10.0.0.0", 7400), new ClusterNode(1, "10.0.0.1", 7400),
            new ClusterNode(2, "10.0.0.2", 7400), new ClusterNode(3, "10.0.0.3", 7400));
        final List<ReplicaGroup> groups = List.of(new ReplicaGroup(3, new int[] {0, 1}, new int[0], false),
            new ReplicaGroup(5, new int[] {2, 3}, new int[0], false));
        final long[] segments = {KeyHash.segment(0, 8), KeyHash.segment(0, 8), KeyHash.segment(8, 8),
            KeyHash.segment(8, 8)};
        return new ClusterMap(12, 10, 4, nodes, 2, groups, new int[] {3, 5, 3, 5}, segments);
    }

    private static MapMoves moves()
    {
        return new MapMoves(List.of(
                new MoveBatch(11_000, 3, 5, MovePhase.FREEZE, 12, new int[] {2, 0},
                    new long[] {KeyHash.segment(16, 8), KeyHash.segment(24, 6)})),
            List.of(new RetiredSegment(5, 1, KeyHash.segment(40, 8), 9, 8_000)));
    }

    @Test
    void aGroupOwningNoPartitionRoundTripsAndTakesAMove()
    {
        // base()'s groups and a new group 7 of two more nodes (docs/growth.md §12 rule 4), the target of a move
        final ClusterMap b = base();
        final List<ClusterNode> nodes = new java.util.ArrayList<>(b.nodes());
        nodes.add(new ClusterNode(4, "10.0.0.4", 7400));
        nodes.add(new ClusterNode(6, "10.0.0.6", 7400));
        final List<ReplicaGroup> groups = new java.util.ArrayList<>(b.groups());
        groups.add(new ReplicaGroup(7, new int[] {4, 6}, new int[0], false));
        final ClusterMap grown = new ClusterMap(13, 13, 4, nodes, 2, groups, b.partitionGroups(), b.segments());
        assertEquals(0, grown.partitionsOf(4).length);
        assertTrue(grown.fencesLike(b), "a new group holding nothing fences nobody");
        assertTrue(b.fencesLike(grown), "nor does one dissolved holding nothing");
        final int[] given = b.partitionGroups();
        given[0] = 7;
        assertFalse(new ClusterMap(13, 13, 4, nodes, 2, groups, given, b.segments()).fencesLike(b),
            "a new group that owns a partition fences");
        final ClusterMap moving = grown.withMoves(new MapMoves(List.of(new MoveBatch(13_000, 3, 7, MovePhase.COPY, 13,
            new int[] {0}, new long[] {KeyHash.segment(0, 8)})), List.of()));
        for (final ClusterMap map : List.of(grown, moving))
        {
            assertEquals(map, ClusterMapCodec.decode(ClusterMapCodec.encode(map)));
            assertEquals(map, ClusterMap.fromJson(map.toJson()));
        }
        for (int p = 0; p < 4; p++)
        {
            assertEquals(b.nodeFor(p), moving.nodeFor(p), "the new group serves nothing yet");
        }
    }

    @Test
    void movesAndRetiredSegmentsRoundTripInBinaryAndJson()
    {
        final ClusterMap map = base().withMoves(moves());
        final byte[] bytes = ClusterMapCodec.encode(map);
        assertEquals(ClusterMapCodec.FORMAT, bytes[0]);
        assertEquals(ClusterMapCodec.encodedLength(map), bytes.length);
        assertEquals(ClusterMapCodec.encodedLength(base()) + 24 + 2 * 12 + 32, bytes.length);
        final ClusterMap back = ClusterMapCodec.decode(bytes);
        assertEquals(map, back);
        assertEquals(moves(), back.moves());
        assertEquals(map, ClusterMap.fromJson(map.toJson()));
        assertTrue(map.toJson().contains("\"moves\":[{\"id\":11000,\"source\":3,\"target\":5,\"phase\":\"freeze\"," +
            "\"phase_epoch\":12,\"partitions\":[2,0],\"segments\":[16,8,24,6]}]"), map.toJson());
        assertTrue(map.toJson().contains("\"retired\":[{\"group\":5,\"partition\":1,\"segment\":[40,8]," +
            "\"switch_epoch\":9,\"batch\":8000}]"), map.toJson());
        // a map without moves writes neither field, and differs from one with them
        assertFalse(base().toJson().contains("moves"));
        assertFalse(base().toJson().contains("retired"));
        assertNotEquals(base(), map);
        assertEquals(map, map.withFenceEpoch(10).withSegments(map.segments()), "moves kept by the other withers");
        // routing is the partition table's: moves change no key's node or segment
        for (int p = 0; p < 4; p++)
        {
            assertEquals(base().nodeFor(p), map.nodeFor(p));
            assertEquals(base().segmentOf(p), map.segmentOf(p));
        }
    }

    @Test
    void formatThreeIsStillRead()
    {
        final ClusterMap map = base();
        final byte[] four = ClusterMapCodec.encode(map);
        // format 3: the same bytes without the two empty move sections (u16 + u32)
        final byte[] three = Arrays.copyOf(four, four.length - 6);
        three[0] = (byte)ClusterMapCodec.FORMAT_WITHOUT_MOVES;
        assertEquals(map, ClusterMapCodec.decode(three));
        // format 3 with bytes after the table is refused; format 4 without its sections too
        assertEquals(Kind.BAD_LENGTH, assertThrows(MalformedMessageException.class,
            () -> ClusterMapCodec.decode(Arrays.copyOf(three, three.length + 1))).kind());
        final byte[] cut = Arrays.copyOf(four, four.length - 6);
        assertThrows(MalformedMessageException.class, () -> ClusterMapCodec.decode(cut));
    }

    @Test
    void aSwitchOnlyChangesPlacementAndFencesLikeTheMapBefore()
    {
        final ClusterMap before = base();
        final int[] groups = before.partitionGroups();
        groups[2] = 5;
        final long[] segments = before.segments();
        segments[2] = KeyHash.segment(16, 8);
        final ClusterMap after = new ClusterMap(13, 10, 4, before.nodes(), 2, before.groups(), groups, segments,
            moves());
        assertTrue(after.fencesLike(before), "a partition changing group fences nobody");
        assertFalse(after.placesLike(before), "but cached slot addresses of it are no good");
        assertEquals(before.node(2), after.nodeFor(2));
        final ClusterMap failover = new ClusterMap(13, 13, 4, before.nodes(), 2,
            List.of(new ReplicaGroup(3, new int[] {1}, new int[] {0}, false), before.groups().get(1)),
            before.partitionGroups(), before.segments());
        assertFalse(failover.fencesLike(before), "a new primary fences");
    }

    @Test
    void refusesMovesOfAWrongForm()
    {
        final ClusterMap map = base();
        final long s = KeyHash.segment(16, 8);
        // a partition in two batches, a batch id twice, an unknown group, a partition out of range, twice in a batch
        assertThrows(InvalidClusterMapException.class, () -> map.withMoves(new MapMoves(List.of(
            new MoveBatch(1, 3, 5, MovePhase.COPY, 12, new int[] {0}, new long[] {s}),
            new MoveBatch(2, 3, 5, MovePhase.COPY, 12, new int[] {0}, new long[] {s})), List.of())));
        assertThrows(InvalidClusterMapException.class, () -> map.withMoves(new MapMoves(List.of(
            new MoveBatch(1, 3, 5, MovePhase.COPY, 12, new int[] {0}, new long[] {s}),
            new MoveBatch(1, 3, 5, MovePhase.COPY, 12, new int[] {2}, new long[] {s})), List.of())));
        assertThrows(InvalidClusterMapException.class, () -> map.withMoves(new MapMoves(List.of(
            new MoveBatch(1, 3, 4, MovePhase.COPY, 12, new int[] {0}, new long[] {s})), List.of())));
        assertThrows(InvalidClusterMapException.class, () -> map.withMoves(new MapMoves(List.of(
            new MoveBatch(1, 3, 5, MovePhase.COPY, 12, new int[] {4}, new long[] {s})), List.of())));
        assertThrows(InvalidClusterMapException.class,
            () -> new MoveBatch(1, 3, 5, MovePhase.COPY, 12, new int[] {0, 0}, new long[] {s, s}));
        assertThrows(InvalidClusterMapException.class,
            () -> new MoveBatch(1, 3, 5, MovePhase.COPY, 12, new int[0], new long[0]));
        assertThrows(InvalidClusterMapException.class, () -> map.withMoves(new MapMoves(List.of(),
            List.of(new RetiredSegment(4, 0, s, 3, 1)))));
        assertThrows(InvalidClusterMapException.class, () -> map.withSegments(null).withMoves(moves()));
        // JSON: an unknown phase, a field misspelt, moves on a map without groups
        final String json = map.withMoves(moves()).toJson();
        assertThrows(InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"freeze\"", "\"thaw\"")));
        assertThrows(InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"phase_epoch\"", "\"phase_epohc\"")));
        assertThrows(InvalidClusterMapException.class,
            () -> ClusterMap.fromJson(json.replace("\"segments\":[16,8,24,6]", "\"segments\":[16,8]")));
        assertThrows(InvalidClusterMapException.class, () -> ClusterMap.fromJson(
            "{\"epoch\": 1, \"moves\": [], \"partitions\": 1, \"nodes\": [{\"id\": 0, \"host\": \"h\", \"port\": 1}]}"));
    }

    @Test
    void refusesMalformedMoveSections()
    {
        final ClusterMap map = base().withMoves(moves());
        final byte[] bytes = ClusterMapCodec.encode(map);
        final int retired = bytes.length - 32;
        final int batch = retired - 4 - 24 - 2 * 12;
        assertEquals(11_000, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(batch));
        // a phase past SWITCH, a reserved byte, a group index past the groups, in a batch and a retired segment
        assertEquals(Kind.BAD_FIELD, kind(patched(bytes, batch + 12, 3)));
        assertEquals(Kind.BAD_FIELD, kind(patched(bytes, batch + 13, 1)));
        assertEquals(Kind.BAD_FIELD, kind(patched(bytes, batch + 10, 2)));
        assertEquals(Kind.BAD_FIELD, kind(patched(bytes, retired + 16, 2)));
        assertEquals(Kind.BAD_FIELD, kind(patched(bytes, retired + 18, 1)));
        // a partition count past the bytes
        assertEquals(Kind.OVERSIZED, kind(patched(bytes, batch + 14, 0xFF, 0xFF)));
        // every truncation, and random damage: only malformed messages, or maps that round-trip
        for (int length = 0; length < bytes.length; length++)
        {
            final Kind kind = kind(Arrays.copyOf(bytes, length));
            assertTrue(kind == Kind.BAD_LENGTH || kind == Kind.OVERSIZED, length + ": " + kind);
        }
        final Random random = new Random(24);
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] damaged = bytes.clone();
            damaged[bytes.length - 1 - random.nextInt(bytes.length - batch + 2)] = (byte)random.nextInt();
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
    }

    private static Kind kind(final byte[] bytes)
    {
        return assertThrows(MalformedMessageException.class, () -> ClusterMapCodec.decode(bytes)).kind();
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
}
