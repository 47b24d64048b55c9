package io.rdmakv.systemtests.peer;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a node's region from the server's side, as a test playing the NIC or a flipped bit does: walks
 * the index and finds the key-value blocks the slots point to.
 */
public final class RegionView
{
    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    /** One used slot: where it is and the block it points to (offsets from the start of the region). */
    public record Slot(long slotOffset, long word, long blockOffset, int blockLength)
    {
    }

    private final MemorySegment region;
    private final RegionGeometry geometry;

    public RegionView(final KvServer server)
    {
        this.region = server.regionSegment();
        this.geometry = server.geometry();
    }

    public MemorySegment region()
    {
        return region;
    }

    public RegionGeometry geometry()
    {
        return geometry;
    }

    /** Every used slot of the index. */
    public List<Slot> usedSlots()
    {
        final List<Slot> used = new ArrayList<>();
        for (long g = 0; g < geometry.groupCount(); g++)
        {
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long offset = geometry.slotRegionOffset(g, s);
                final long word = region.get(SLOT, offset);
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

    /** The key bytes of the block a slot points to. */
    public byte[] keyOf(final Slot slot)
    {
        final int keyLength = Short.toUnsignedInt(region.get(U16, slot.blockOffset() +
            KvBlockDescriptor.KEY_LENGTH_OFFSET));
        if (keyLength > KvBlockDescriptor.MAX_KEY_LENGTH ||
            KvBlockDescriptor.KEY_OFFSET + keyLength > slot.blockLength())
        {
            return new byte[0];
        }
        return bytes(slot.blockOffset() + KvBlockDescriptor.KEY_OFFSET, keyLength);
    }

    /** Region offset of the first value byte of the block a slot points to. */
    public long valueOffset(final Slot slot)
    {
        final int keyLength = Short.toUnsignedInt(region.get(U16, slot.blockOffset() +
            KvBlockDescriptor.KEY_LENGTH_OFFSET));
        return slot.blockOffset() + KvBlockDescriptor.valueOffset(keyLength);
    }

    public int valueLength(final Slot slot)
    {
        return region.get(U32, slot.blockOffset() + KvBlockDescriptor.VALUE_LENGTH_OFFSET);
    }

    /** A copy of {@code length} bytes of the region from {@code offset}. */
    public byte[] bytes(final long offset, final int length)
    {
        return region.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Inverts every bit of the byte at {@code offset}: the flipped bits of a bad DIMM or a stray write. */
    public void flip(final long offset)
    {
        region.set(ValueLayout.JAVA_BYTE, offset, (byte)~region.get(ValueLayout.JAVA_BYTE, offset));
    }
}
