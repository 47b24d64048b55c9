package io.rdmakv.common.protocol;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import io.rdmakv.common.protocol.wire.SlotKeyPrefix;

import java.util.Arrays;

/**
 * HELP, client to primary node: "the first backup of this slot of my key holds {@code word}, the primary
 * still {@code expected}: its writer is stuck or gone between the two CASes; finish it, if that writer may
 * still finish it itself" (answered by HELP_REPLY). Only the primary can tell whether that writer's
 * session still owns the block: a writer that is gone had its session fenced and its space reclaimed, and
 * pushing its word would make the slot name space that is free. See the node's {@code ChainHelp}.
 *
 * <pre>
 *  16 group        u64   the slot's bucket group
 *  24 slot         u16   0..13, the slot in the group
 *  26 key_length   u16   0..1024
 *  28 reserved     u32   zero
 *  32 expected     u64   the word the primary's slot held when the client read it
 *  40 word         u64   the word the first backup holds (not 0: a DELETE's empty word needs no block)
 *  48 key          key_length bytes: the key the client is writing
 * </pre>
 *
 * Bytes 16 to 31 are the prefix it shares with REPAIR ({@link SlotKeyPrefix}).
 */
public record HelpMessage(long requestId, long group, int slot, long expected, long word, byte[] key)
    implements ControlMessage
{
    public static final int GROUP_OFFSET = SlotKeyPrefix.GROUP_OFFSET;
    public static final int SLOT_OFFSET = SlotKeyPrefix.SLOT_OFFSET;
    public static final int KEY_LENGTH_OFFSET = SlotKeyPrefix.KEY_LENGTH_OFFSET;
    public static final int RESERVED_OFFSET = SlotKeyPrefix.RESERVED_OFFSET;
    public static final int EXPECTED_OFFSET = SlotKeyPrefix.END;
    public static final int WORD_OFFSET = EXPECTED_OFFSET + Long.BYTES;
    public static final int KEY_OFFSET = WORD_OFFSET + Long.BYTES;
    public static final int MAX_LENGTH = KEY_OFFSET + KvBlockDescriptor.MAX_KEY_LENGTH;

    public HelpMessage
    {
        key = key.clone();
        if (!SlotKeyPrefix.validSlot(group, slot) || word == 0 || word == expected)
        {
            throw new IllegalArgumentException("HELP of group " + group + " slot " + slot + " word " +
                Long.toHexString(word) + ": group at least 0, slot 0.." + (BucketDescriptor.SLOTS_PER_GROUP - 1) +
                ", word not 0 and not the expected word");
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
        return MessageType.HELP;
    }

    @Override
    public int encodedLength()
    {
        return KEY_OFFSET + key.length;
    }

    void encodeBody(final MessageWriter writer)
    {
        SlotKeyPrefix.encode(writer, group, slot, key.length);
        writer.u64(expected).u64(word).bytes(key);
    }

    static HelpMessage decode(final MessageReader reader, final long requestId)
    {
        final SlotKeyPrefix.Read prefix = SlotKeyPrefix.decode(reader);
        final long expected = reader.u64("expected");
        final long word = reader.u64("word");
        return new HelpMessage(requestId, prefix.group(), prefix.slot(), expected, word,
            reader.bytes(prefix.keyLength(), "key"));
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof HelpMessage m && requestId == m.requestId && group == m.group && slot == m.slot &&
            expected == m.expected && word == m.word && Arrays.equals(key, m.key);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(group) * 31 + Long.hashCode(word);
    }
}
