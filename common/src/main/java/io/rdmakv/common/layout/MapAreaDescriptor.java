package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.zip.CRC32C;

/**
 * Layout of a node's <b>map area</b>: a small memory region of its own, registered for remote READ only, that
 * holds the binary cluster map the node serves ({@code ClusterMapCodec}), so that a client that learns of a newer
 * map (from a heartbeat answer) fetches it with one-sided READs on a queue pair it already has, instead of opening
 * a session for a HELLO_OK. Double-buffered behind a header (little-endian):
 *
 * <pre>
 *    0 sequence   u64   even while the header is whole; odd while the node rewrites it (a seqlock)
 *    8 epoch      u64   the epoch of the map in the buffer named below (0 with length 0: none yet)
 *   16 length     u32   its length in bytes, at most {@value #BUFFER_LENGTH}
 *   20 buffer     u32   0 or 1: which buffer holds it
 *   24 crc32c     u32   CRC-32C of its bytes
 *   28 reserved   u32   zero
 *   32 zero up to {@value #HEADER_LENGTH}
 *   64 buffer 0   {@value #BUFFER_LENGTH} bytes
 *   ..  buffer 1   {@value #BUFFER_LENGTH} bytes
 * </pre>
 *
 * The node writes a new map into the buffer the header does not name, then the header: sequence to odd, the
 * fields, sequence to the next even value ({@link #publish}). A reader READs the header, then the named buffer
 * and the header again in one doorbell (READs of one queue pair run in order), and keeps the map only if both
 * headers are whole and equal and the CRC holds ({@link #check}); else it reads again. A READ of the buffer
 * can only be torn by two publishes during it, which moves the sequence.
 */
public final class MapAreaDescriptor
{
    public static final int SEQUENCE_OFFSET = 0;
    public static final int EPOCH_OFFSET = 8;
    public static final int LENGTH_OFFSET = 16;
    public static final int BUFFER_OFFSET = 20;
    public static final int CRC_OFFSET = 24;
    public static final int RESERVED_OFFSET = 28;
    /** The header: one cache line. */
    public static final int HEADER_LENGTH = 64;
    /** One buffer: room for the longest binary map HELLO_OK may carry (under 64 KiB). */
    public static final int BUFFER_LENGTH = 64 * 1024;
    /** The whole area: header and two buffers. */
    public static final int LENGTH = HEADER_LENGTH + 2 * BUFFER_LENGTH;

    private MapAreaDescriptor()
    {
    }

    /** Where buffer {@code buffer} (0 or 1) starts. */
    public static int bufferOffset(final int buffer)
    {
        return HEADER_LENGTH + buffer * BUFFER_LENGTH;
    }

    /** The epoch the header at {@code offset} names. */
    public static long epoch(final MemorySegment area, final long offset)
    {
        return area.get(LittleEndian.U64, offset + EPOCH_OFFSET);
    }

    /** The buffer the header at {@code offset} names (as read: check it). */
    public static int buffer(final MemorySegment area, final long offset)
    {
        return area.get(LittleEndian.U32, offset + BUFFER_OFFSET);
    }

    /** The map length the header at {@code offset} names (as read: check it). */
    public static int length(final MemorySegment area, final long offset)
    {
        return area.get(LittleEndian.U32, offset + LENGTH_OFFSET);
    }

    public static long sequence(final MemorySegment area, final long offset)
    {
        return area.get(LittleEndian.U64, offset + SEQUENCE_OFFSET);
    }

    /**
     * Writes {@code map} (the binary map of epoch {@code epoch}) into the buffer {@code area}'s header does not
     * name, then the header, as the node does when it applies a map. One writer at a time.
     */
    public static void publish(final MemorySegment area, final byte[] map, final long epoch)
    {
        if (map.length > BUFFER_LENGTH || epoch < 0)
        {
            throw new IllegalArgumentException("a map of " + map.length + " bytes at epoch " + epoch +
                " does not fit a map area (at most " + BUFFER_LENGTH + " bytes)");
        }
        final long sequence = sequence(area, 0);
        final int next = sequence == 0 || buffer(area, 0) != 0 ? 0 : 1; // never the one readers may be reading
        MemorySegment.copy(map, 0, area, ValueLayout.JAVA_BYTE, bufferOffset(next), map.length);
        final CRC32C crc = new CRC32C();
        crc.update(map);
        VarHandle.releaseFence();
        area.set(LittleEndian.U64, SEQUENCE_OFFSET, sequence + 1);
        VarHandle.fullFence();
        area.set(LittleEndian.U64, EPOCH_OFFSET, epoch);
        area.set(LittleEndian.U32, LENGTH_OFFSET, map.length);
        area.set(LittleEndian.U32, BUFFER_OFFSET, next);
        area.set(LittleEndian.U32, CRC_OFFSET, (int)crc.getValue());
        area.set(LittleEndian.U32, RESERVED_OFFSET, 0);
        VarHandle.releaseFence();
        area.set(LittleEndian.U64, SEQUENCE_OFFSET, sequence + 2);
        VarHandle.fullFence();
    }

    /**
     * Checks a fetched map: {@code first} is the header read before the buffer, {@code second} the one read after
     * it (each {@link #HEADER_LENGTH} bytes at offset 0), {@code buffer} the bytes read from the buffer {@code
     * first} named ({@code first}'s length of them). Returns null when the map is whole, else why not:
     * a header being written or changed in between (read again), or a length, buffer or CRC no node writes.
     */
    public static String check(final MemorySegment first, final MemorySegment second, final MemorySegment buffer)
    {
        final long sequence = sequence(first, 0);
        if ((sequence & 1) != 0 || sequence == 0)
        {
            return sequence == 0 ? "the map area holds no map yet" : "the node was writing the map area's header";
        }
        if (first.asSlice(0, HEADER_LENGTH).mismatch(second.asSlice(0, HEADER_LENGTH)) != -1)
        {
            return "the node published another map while it was read (sequence " + sequence + " -> " +
                sequence(second, 0) + ")";
        }
        final String header = checkHeader(first);
        if (header != null)
        {
            return header;
        }
        final int length = length(first, 0);
        if (buffer.byteSize() < length)
        {
            return "read " + buffer.byteSize() + " bytes of a map of " + length;
        }
        final CRC32C crc = new CRC32C();
        crc.update(buffer.asSlice(0, length).asByteBuffer());
        final int expected = first.get(LittleEndian.U32, CRC_OFFSET);
        if ((int)crc.getValue() != expected)
        {
            return String.format("the map's CRC-32C is %08x, its header says %08x", (int)crc.getValue(), expected);
        }
        return null;
    }

    /**
     * Checks the fields of a whole header (sequence even): null when a node could have written it, else what is
     * wrong with it.
     */
    public static String checkHeader(final MemorySegment header)
    {
        final long length = Integer.toUnsignedLong(length(header, 0));
        final long buffer = Integer.toUnsignedLong(buffer(header, 0));
        if (length == 0 || length > BUFFER_LENGTH)
        {
            return "the map area's header names a map of " + length + " bytes (1.." + BUFFER_LENGTH + ")";
        }
        if (buffer > 1)
        {
            return "the map area's header names buffer " + buffer + " (0 or 1)";
        }
        if (epoch(header, 0) < 0 || header.get(LittleEndian.U32, RESERVED_OFFSET) != 0)
        {
            return "the map area's header has an epoch over 2^63 - 1 or reserved bits set";
        }
        return null;
    }
}
