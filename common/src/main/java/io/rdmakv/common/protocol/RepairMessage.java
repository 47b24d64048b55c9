package io.rdmakv.common.protocol;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import io.rdmakv.common.protocol.wire.SlotKeyPrefix;

import java.util.Arrays;

/**
 * REPAIR, client to node: "this slot of my key's names a damaged block; clear it" (answered by
 * REPAIR_REPLY). Sent by a PUT or DELETE that reached the corruption verdict on a slot; the node repeats
 * every check on its own memory before it clears anything (see the node's {@code SlotRepair}).
 *
 * <pre>
 *  16 group        u64   the slot's bucket group
 *  24 slot         u16   0..13, the slot in the group
 *  26 key_length   u16   0..1024
 *  28 reserved     u32   zero
 *  32 word         u64   the slot word the client saw (not 0)
 *  40 key          key_length bytes: the key the client is writing
 * </pre>
 *
 * Bytes 16 to 31 are the prefix it shares with HELP ({@link SlotKeyPrefix}).
 *
 * Whether the group exists is the node's to check (it answers REFUSED), not the codec's.
 */
public record RepairMessage(long requestId, long group, int slot, long word, byte[] key) implements ControlMessage
{
    public static final int GROUP_OFFSET = SlotKeyPrefix.GROUP_OFFSET;
    public static final int SLOT_OFFSET = SlotKeyPrefix.SLOT_OFFSET;
    public static final int KEY_LENGTH_OFFSET = SlotKeyPrefix.KEY_LENGTH_OFFSET;
    public static final int RESERVED_OFFSET = SlotKeyPrefix.RESERVED_OFFSET;
    public static final int WORD_OFFSET = SlotKeyPrefix.END;
    public static final int KEY_OFFSET = WORD_OFFSET + Long.BYTES;
    public static final int MAX_LENGTH = KEY_OFFSET + KvBlockDescriptor.MAX_KEY_LENGTH;

    public RepairMessage
    {
        key = key.clone();
        if (!SlotKeyPrefix.validSlot(group, slot) || word == 0)
        {
            throw new IllegalArgumentException("REPAIR of group " + group + " slot " + slot + " word " +
                Long.toHexString(word) + ": group at least 0, slot 0.." + (BucketDescriptor.SLOTS_PER_GROUP - 1) +
                ", word not 0");
        }
        KvBlockDescriptor.checkKeyLength(key.length);
    }

    @Override
    public byte[] key()
    {
        return key.clone();
    }

    @Override
    public MessageType type()
    {
        return MessageType.REPAIR;
    }

    @Override
    public int encodedLength()
    {
        return KEY_OFFSET + key.length;
    }

    void encodeBody(final MessageWriter writer)
    {
        SlotKeyPrefix.encode(writer, group, slot, key.length);
        writer.u64(word).bytes(key);
    }

    static RepairMessage decode(final MessageReader reader, final long requestId)
    {
        final SlotKeyPrefix.Read prefix = SlotKeyPrefix.decode(reader);
        final long word = reader.u64("word");
        return new RepairMessage(requestId, prefix.group(), prefix.slot(), word,
            reader.bytes(prefix.keyLength(), "key"));
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof RepairMessage m && requestId == m.requestId && group == m.group && slot == m.slot &&
            word == m.word && Arrays.equals(key, m.key);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(requestId) * 31 + Long.hashCode(group) * 17 + slot * 13 + Long.hashCode(word) * 7 +
            Arrays.hashCode(key);
    }

    @Override
    public String toString()
    {
        return "RepairMessage{requestId=" + requestId + " group=" + group + " slot=" + slot + " word=0x" +
            Long.toHexString(word) + " keyLength=" + key.length + "}";
    }
}
