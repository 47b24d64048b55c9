package io.rdmakv.systemtests.peer;

import io.rdmakv.common.layout.KvBlockDescriptor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/** Blocks a hostile client could write: well formed, checksums valid, values of its choosing. */
public final class Forgery
{
    /** The byte every value byte of a {@link #wellFormed} forgery holds. */
    public static final byte FORGED = 0x42;

    private Forgery()
    {
    }

    /** {@code block} (a whole key-value block) with every value byte {@link #FORGED} and its checksum valid again. */
    public static byte[] wellFormed(final byte[] block)
    {
        final byte[] f = block.clone();
        final ByteBuffer b = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN);
        final int keyLength = Short.toUnsignedInt(b.getShort(KvBlockDescriptor.KEY_LENGTH_OFFSET));
        final int valueLength = b.getInt(KvBlockDescriptor.VALUE_LENGTH_OFFSET);
        final int valueAt = KvBlockDescriptor.valueOffset(keyLength);
        for (int i = 0; i < valueLength; i++)
        {
            f[valueAt + i] = FORGED;
        }
        final CRC32C crc = new CRC32C();
        crc.update(f, KvBlockDescriptor.CHECKSUM_FROM, KvBlockDescriptor.checksummedLength(keyLength, valueLength));
        b.putInt(KvBlockDescriptor.CHECKSUM_OFFSET, (int)crc.getValue());
        return f;
    }

    /** Writes a {@link #wellFormed} forgery over {@code key}'s block on the node {@code view} looks at. */
    public static RegionView.Slot overwrite(final RegionView view, final byte[] key)
    {
        final RegionView.Slot slot = view.find(key);
        view.write(slot.blockOffset(), wellFormed(view.bytes(slot.blockOffset(), slot.blockLength())));
        return slot;
    }
}
