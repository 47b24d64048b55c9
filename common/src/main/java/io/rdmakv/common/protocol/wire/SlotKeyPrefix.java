package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;

/**
 * The body prefix that REPAIR and HELP share: which slot of which bucket group, and the length of the key
 * that ends the message. The message's own words follow it, then the key.
 *
 * <pre>
 *  16 group        u64   the slot's bucket group
 *  24 slot         u16   0..13, the slot in the group
 *  26 key_length   u16   0..1024
 *  28 reserved     u32   zero
 *  32 ...          the message's words, then key_length bytes of key
 * </pre>
 */
public final class SlotKeyPrefix
{
    public static final int GROUP_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int SLOT_OFFSET = GROUP_OFFSET + Long.BYTES;
    public static final int KEY_LENGTH_OFFSET = SLOT_OFFSET + Short.BYTES;
    public static final int RESERVED_OFFSET = KEY_LENGTH_OFFSET + Short.BYTES;
    /** Where the message's own fields start. */
    public static final int END = RESERVED_OFFSET + Integer.BYTES;

    /** The prefix as read: the key itself is read after the message's words. */
    public record Read(long group, int slot, int keyLength)
    {
    }

    private SlotKeyPrefix()
    {
    }

    /** Whether {@code group} and {@code slot} can name a slot (whether the group exists is the node's to say). */
    public static boolean validSlot(final long group, final int slot)
    {
        return group >= 0 && slot >= 0 && slot < BucketDescriptor.SLOTS_PER_GROUP;
    }

    public static void encode(final MessageWriter writer, final long group, final int slot, final int keyLength)
    {
        writer.u64(group).u16(slot).u16(keyLength).u32(0);
    }

    public static Read decode(final MessageReader reader)
    {
        final long group = reader.u64("group");
        final int slot = reader.u16("slot");
        final int keyLength = reader.length(reader.u16("key length"), KvBlockDescriptor.MAX_KEY_LENGTH, "key");
        reader.u32("reserved");
        return new Read(group, slot, keyLength);
    }
}
