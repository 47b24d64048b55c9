package io.rdmakv.systemtests.peer;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A node's region as a peer sees it: over RDMA, through a session of its own ({@link RawSession}), with the
 * rights the node grants every session. The header and index memory region allows RDMA READ and
 * compare-and-swap, so the view reads the whole index and can swing a slot to any word; the data area allows
 * READ, so it reads the key-value blocks the slots point to, and, on a node without memory windows only
 * ({@code --memory-windows=off}), WRITE, so that it can overwrite their bytes, as a flipped bit or a buggy
 * client would. Every read goes to the node (nothing is cached), and the view's
 * session is one more session on the node while the view is open.
 *
 * <p>Offsets are from the start of the region, as in {@link RegionGeometry}: below
 * {@link RegionGeometry#dataOffset()} they address the header and index memory region, from there on the
 * data area.
 */
public final class RegionView implements AutoCloseable
{
    /** Bytes one RDMA READ or WRITE of the view moves at most: more than the largest block. */
    private static final int SCRATCH = 256 * 1024;
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    /** One used slot: where it is and the block it points to (offsets from the start of the region). */
    public record Slot(long slotOffset, long word, long blockOffset, int blockLength)
    {
    }

    private final RawSession session;
    private final RemoteRegion index;
    private final RemoteRegion data;
    private final RegionGeometry geometry;

    /** Opens a session to the node listening on {@code port} of the loopback address. */
    public RegionView(final int port)
    {
        session = new RawSession(port, "", SCRATCH);
        index = session.hello().indexRegion();
        data = session.hello().dataRegion();
        geometry = session.hello().geometry();
    }

    public RegionView(final KvServer server)
    {
        this(server.port());
    }

    /** The geometry the node announced in HELLO_OK. */
    public RegionGeometry geometry()
    {
        return geometry;
    }

    /** Every used slot of the index, read now. */
    public List<Slot> usedSlots()
    {
        final byte[] indexBytes = bytes(geometry.indexOffset(), Math.toIntExact(geometry.indexLength()));
        final MemorySegment indexCopy = MemorySegment.ofArray(indexBytes);
        final List<Slot> used = new ArrayList<>();
        for (long g = 0; g < geometry.groupCount(); g++)
        {
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long offset = geometry.slotRegionOffset(g, s);
                final long word = indexCopy.get(SLOT, offset - geometry.indexOffset());
                if (word != SlotWord.EMPTY)
                {
                    used.add(new Slot(offset, word, geometry.dataOffset() + SlotWord.blockOffset(word),
                        SlotWord.blockLength(word)));
                }
            }
        }
        return used;
    }

    /** Bytes of the data area that used slots reference. */
    public long liveBytes()
    {
        return usedSlots().stream().mapToLong(Slot::blockLength).sum();
    }

    /** The slot whose block holds {@code key}; fails when no slot does. */
    public Slot find(final byte[] key)
    {
        for (final Slot slot : usedSlots())
        {
            if (Arrays.equals(key, keyOf(slot)))
            {
                return slot;
            }
        }
        throw new AssertionError("no block of key " + new String(key) + " in the region");
    }

    /** The key bytes of the block a slot points to (empty when its key length field is implausible). */
    public byte[] keyOf(final Slot slot)
    {
        if (!SlotWord.isWithin(slot.word(), geometry.dataLength()))
        {
            return new byte[0];
        }
        final MemorySegment block = MemorySegment.ofArray(bytes(slot.blockOffset(), slot.blockLength()));
        final int keyLength = Short.toUnsignedInt(block.get(U16, KvBlockDescriptor.KEY_LENGTH_OFFSET));
        if (keyLength > KvBlockDescriptor.MAX_KEY_LENGTH ||
            KvBlockDescriptor.KEY_OFFSET + keyLength > slot.blockLength())
        {
            return new byte[0];
        }
        return block.asSlice(KvBlockDescriptor.KEY_OFFSET, keyLength).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Region offset of the first value byte of the block a slot points to. */
    public long valueOffset(final Slot slot)
    {
        final int keyLength = Short.toUnsignedInt(MemorySegment.ofArray(
            bytes(slot.blockOffset() + KvBlockDescriptor.KEY_LENGTH_OFFSET, Short.BYTES)).get(U16, 0));
        return slot.blockOffset() + KvBlockDescriptor.valueOffset(keyLength);
    }

    public int valueLength(final Slot slot)
    {
        return MemorySegment.ofArray(bytes(slot.blockOffset() + KvBlockDescriptor.VALUE_LENGTH_OFFSET,
            Integer.BYTES)).get(U32, 0);
    }

    /** The 8 bytes at {@code offset}, in the machine's byte order. */
    public long longAt(final long offset)
    {
        return MemorySegment.ofArray(bytes(offset, Long.BYTES)).get(SLOT, 0);
    }

    /**
     * A copy of {@code length} bytes of the region from {@code offset}, read with RDMA READs (the index memory
     * region's part with its R_Key, the data area's with its own).
     */
    public byte[] bytes(final long offset, final int length)
    {
        final byte[] out = new byte[length];
        int done = 0;
        while (done < length)
        {
            final long at = offset + done;
            final int n = Math.min(Math.min(length - done, SCRATCH), (int)Math.min(Integer.MAX_VALUE,
                at < geometry.dataOffset() ? geometry.dataOffset() - at : geometry.regionLength() - at));
            if (n <= 0)
            {
                throw new IllegalArgumentException(length + " bytes at " + offset + " reach past the region");
            }
            final WcStatus status = at < geometry.dataOffset() ?
                session.read(index.addressOf(at), index.rkey(), n) :
                session.read(data.addressOf(at - geometry.dataOffset()), data.rkey(), n);
            check(status, "READ of " + n + " bytes at region offset " + at);
            MemorySegment.copy(session.scratch(), ValueLayout.JAVA_BYTE, 0, out, done, n);
            done += n;
        }
        return out;
    }

    /**
     * Inverts every bit of the byte at {@code offset}: the flipped bits of a bad DIMM or a stray write. In the
     * data area it READs the byte and WRITEs it back inverted; in the index, which allows no WRITE, it swings the
     * 8-byte word holding the byte with a compare-and-swap.
     */
    public void flip(final long offset)
    {
        if (offset >= geometry.dataOffset())
        {
            final byte b = bytes(offset, 1)[0];
            session.scratch().set(ValueLayout.JAVA_BYTE, 0, (byte)~b);
            check(session.write(data.addressOf(offset - geometry.dataOffset()), data.rkey(), 1),
                "WRITE of 1 byte at region offset " + offset);
        }
        else
        {
            final long wordOffset = offset & ~7L;
            final long word = longAt(wordOffset);
            final MemorySegment flipped = MemorySegment.ofArray(new long[] {word});
            flipped.set(ValueLayout.JAVA_BYTE, offset - wordOffset,
                (byte)~flipped.get(ValueLayout.JAVA_BYTE, offset - wordOffset));
            compareAndSwap(wordOffset, word, flipped.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    /**
     * WRITEs {@code bytes} at {@code offset} of the data area (at most {@link #SCRATCH} bytes; a node without memory
     * windows only): a forged or stray write over a block.
     */
    public void write(final long offset, final byte[] bytes)
    {
        if (offset < geometry.dataOffset() || bytes.length > SCRATCH)
        {
            throw new IllegalArgumentException(bytes.length + " bytes at " + offset + ": the data area, at most " +
                SCRATCH + " bytes at a time");
        }
        MemorySegment.copy(bytes, 0, session.scratch(), ValueLayout.JAVA_BYTE, 0, bytes.length);
        check(session.write(data.addressOf(offset - geometry.dataOffset()), data.rkey(), bytes.length),
            "WRITE of " + bytes.length + " bytes at region offset " + offset);
    }

    /** Swings the slot word at {@code slot.slotOffset()} from {@code slot.word()} to {@code word} (RDMA CAS). */
    public void swapSlot(final Slot slot, final long word)
    {
        compareAndSwap(slot.slotOffset(), slot.word(), word);
    }

    /** RDMA compare-and-swap of the 8-byte index word at {@code offset}; fails unless it held {@code expected}. */
    private void compareAndSwap(final long offset, final long expected, final long swap)
    {
        if (offset + Long.BYTES > geometry.dataOffset())
        {
            throw new IllegalArgumentException("compare-and-swap at " + offset + ": only the index allows atomics");
        }
        check(session.compareAndSwap(index.addressOf(offset), index.rkey(), expected, swap),
            "compare-and-swap at region offset " + offset);
        final long was = session.scratch().get(ValueLayout.JAVA_LONG, 0);
        if (was != expected)
        {
            throw new AssertionError("the word at region offset " + offset + " was " + Long.toHexString(was) +
                ", not " + Long.toHexString(expected) + ": nothing swapped");
        }
    }

    private static void check(final WcStatus status, final String what)
    {
        if (status != WcStatus.SUCCESS)
        {
            throw new AssertionError(what + " completed with " + status);
        }
    }

    /** Closes the view's session (the node notices its departure shortly after). */
    @Override
    public void close()
    {
        session.close();
    }
}
