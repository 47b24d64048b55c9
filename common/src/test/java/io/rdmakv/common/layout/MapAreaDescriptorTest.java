package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The map area's layout and its seqlock: what a client's READs of it may and may not accept. */
class MapAreaDescriptorTest
{
    @Test
    void pinsTheLayout()
    {
        assertEquals(0, MapAreaDescriptor.SEQUENCE_OFFSET);
        assertEquals(8, MapAreaDescriptor.EPOCH_OFFSET);
        assertEquals(16, MapAreaDescriptor.LENGTH_OFFSET);
        assertEquals(20, MapAreaDescriptor.BUFFER_OFFSET);
        assertEquals(24, MapAreaDescriptor.CRC_OFFSET);
        assertEquals(28, MapAreaDescriptor.RESERVED_OFFSET);
        assertEquals(64, MapAreaDescriptor.HEADER_LENGTH);
        assertEquals(65536, MapAreaDescriptor.BUFFER_LENGTH);
        assertEquals(64 + 2 * 65536, MapAreaDescriptor.LENGTH);
        assertEquals(64, MapAreaDescriptor.bufferOffset(0));
        assertEquals(64 + 65536, MapAreaDescriptor.bufferOffset(1));
        assertEquals(128, RegionHeaderDescriptor.MAP_EPOCH_OFFSET);
    }

    @Test
    void publishesIntoTheOtherBufferAndMovesTheSequenceByTwo()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment area = arena.allocate(MapAreaDescriptor.LENGTH, 64);
            final MemorySegment before = area.asSlice(0, 64);
            assertEquals("the map area holds no map yet", MapAreaDescriptor.check(before, before, area));
            MapAreaDescriptor.publish(area, bytes(100, 1), 5);
            assertEquals(2, MapAreaDescriptor.sequence(area, 0));
            assertEquals(0, MapAreaDescriptor.buffer(area, 0));
            assertEquals(5, MapAreaDescriptor.epoch(area, 0));
            assertNull(check(area));
            MapAreaDescriptor.publish(area, bytes(300, 2), 6);
            assertEquals(4, MapAreaDescriptor.sequence(area, 0));
            assertEquals(1, MapAreaDescriptor.buffer(area, 0));
            assertEquals(300, MapAreaDescriptor.length(area, 0));
            assertNull(check(area));
            assertArrayEquals(bytes(100, 1), area.asSlice(64, 100).toArray(ValueLayout.JAVA_BYTE),
                "the buffer a reader of the previous header reads is left alone");
            MapAreaDescriptor.publish(area, bytes(7, 3), 7);
            assertEquals(0, MapAreaDescriptor.buffer(area, 0));
            assertThrows(IllegalArgumentException.class,
                () -> MapAreaDescriptor.publish(area, new byte[MapAreaDescriptor.BUFFER_LENGTH + 1], 8));
        }
    }

    @Test
    void refusesATornReadABadCrcAndALengthNoNodeWrites()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment area = arena.allocate(MapAreaDescriptor.LENGTH, 64);
            MapAreaDescriptor.publish(area, bytes(100, 1), 5);
            final MemorySegment first = copy(arena, area.asSlice(0, 64));
            MapAreaDescriptor.publish(area, bytes(100, 9), 6);
            MapAreaDescriptor.publish(area, bytes(100, 4), 7);
            // a reader that read the first header, then buffer 0 after two more publishes
            final String torn = MapAreaDescriptor.check(first, area.asSlice(0, 64),
                area.asSlice(MapAreaDescriptor.bufferOffset(0), 100));
            assertNotNull(torn);
            assertTrue(torn.contains("sequence 2 -> 6"), torn);

            final MemorySegment writing = copy(arena, area.asSlice(0, 64));
            writing.set(LittleEndian.U64, 0, 7L);
            assertEquals("the node was writing the map area's header",
                MapAreaDescriptor.check(writing, writing, area.asSlice(64, 100)));

            final MemorySegment header = copy(arena, area.asSlice(0, 64));
            final MemorySegment buffer = copy(arena, area.asSlice(MapAreaDescriptor.bufferOffset(0), 100));
            assertNull(MapAreaDescriptor.check(header, header, buffer));
            buffer.set(ValueLayout.JAVA_BYTE, 50, (byte)0x7F);
            assertTrue(MapAreaDescriptor.check(header, header, buffer).contains("CRC-32C"));

            final MemorySegment longer = copy(arena, header);
            longer.set(LittleEndian.U32, MapAreaDescriptor.LENGTH_OFFSET, MapAreaDescriptor.BUFFER_LENGTH + 1);
            assertTrue(MapAreaDescriptor.check(longer, longer, buffer).contains("65537 bytes"));
            final MemorySegment empty = copy(arena, header);
            empty.set(LittleEndian.U32, MapAreaDescriptor.LENGTH_OFFSET, 0);
            assertNotNull(MapAreaDescriptor.check(empty, empty, buffer));
            final MemorySegment third = copy(arena, header);
            third.set(LittleEndian.U32, MapAreaDescriptor.BUFFER_OFFSET, 2);
            assertTrue(MapAreaDescriptor.check(third, third, buffer).contains("buffer 2"));
            final MemorySegment reserved = copy(arena, header);
            reserved.set(LittleEndian.U32, MapAreaDescriptor.RESERVED_OFFSET, 1);
            assertNotNull(MapAreaDescriptor.check(reserved, reserved, buffer));
            assertTrue(MapAreaDescriptor.check(header, header, buffer.asSlice(0, 50)).contains("read 50 bytes"));
        }
    }

    private static String check(final MemorySegment area)
    {
        return MapAreaDescriptor.check(area.asSlice(0, 64), area.asSlice(0, 64),
            area.asSlice(MapAreaDescriptor.bufferOffset(MapAreaDescriptor.buffer(area, 0)),
                MapAreaDescriptor.length(area, 0)));
    }

    private static MemorySegment copy(final Arena arena, final MemorySegment from)
    {
        final MemorySegment to = arena.allocate(from.byteSize(), 8);
        to.copyFrom(from);
        return to;
    }

    private static byte[] bytes(final int length, final int seed)
    {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++)
        {
            b[i] = (byte)(i * 31 + seed);
        }
        return b;
    }
}
