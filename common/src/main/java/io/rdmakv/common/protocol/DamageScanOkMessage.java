package io.rdmakv.common.protocol;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_LENGTH;

/**
 * DAMAGE_SCAN_OK, node to client: the damaged slots of groups {@code [from_group, next_group)}.
 *
 * <pre>
 *  16 from_group    u64   as asked
 *  24 next_group    u64   where the next page starts; equal to group_count when the index is done
 *  32 group_count   u64   groups in the index
 *  40 count         u16   entries that follow
 *  42 reserved      u16   zero
 *  44 reserved      u32   zero
 *  48 entries       count entries, each {@value #ENTRY_FIXED_LENGTH} bytes plus its key bytes:
 *                     +0  group        u64
 *                     +8  word         u64   the slot word
 *                    +16  slot         u16   0..13
 *                    +18  damage       u16   a {@code SlotDamage} code (never 0)
 *                    +20  key_length   u16   the block's key length, {@value #KEY_UNREADABLE} when unreadable
 *                    +22  key_shown    u16   key bytes that follow: the first min(key_length, {@value
 *                                            #MAX_KEY_SHOWN}) bytes (0 when unreadable)
 *                    +24  key          key_shown bytes
 * </pre>
 *
 * A page always has room for one whole group's slots (14 entries with {@value #MAX_KEY_SHOWN}-byte keys), so
 * a node can always make progress.
 */
public record DamageScanOkMessage(long requestId, long fromGroup, long nextGroup, long groupCount,
    List<Entry> entries) implements ControlMessage
{
    public static final int FROM_GROUP_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int NEXT_GROUP_OFFSET = FROM_GROUP_OFFSET + Long.BYTES;
    public static final int GROUP_COUNT_OFFSET = NEXT_GROUP_OFFSET + Long.BYTES;
    public static final int COUNT_OFFSET = GROUP_COUNT_OFFSET + Long.BYTES;
    public static final int ENTRIES_OFFSET = COUNT_OFFSET + Short.BYTES + Short.BYTES + Integer.BYTES;
    public static final int ENTRY_FIXED_LENGTH = 24;
    /** The most key bytes an entry carries. */
    public static final int MAX_KEY_SHOWN = 256;
    /** {@code key_length} of a block whose key cannot be read. */
    public static final int KEY_UNREADABLE = 0xFFFF;

    /** One damaged slot; {@code keyLength} is -1 when the key is unreadable, {@code key} its first bytes. */
    public record Entry(long group, int slot, long word, int damage, int keyLength, byte[] key)
    {
        public Entry
        {
            key = key.clone();
            if (group < 0 || slot < 0 || slot >= BucketDescriptor.SLOTS_PER_GROUP || damage <= 0 || damage > 0xFFFF ||
                keyLength < -1 || keyLength > KvBlockDescriptor.MAX_KEY_LENGTH ||
                key.length != Math.min(Math.max(keyLength, 0), MAX_KEY_SHOWN))
            {
                throw new IllegalArgumentException("damaged slot entry group " + group + " slot " + slot + " damage " +
                    damage + " key length " + keyLength + " with " + key.length + " key bytes");
            }
        }

        @Override
        public byte[] key()
        {
            return key.clone();
        }

        /** Bytes this entry takes in a message. */
        public int encodedLength()
        {
            return ENTRY_FIXED_LENGTH + key.length;
        }

        @Override
        public boolean equals(final Object o)
        {
            return o instanceof Entry e && group == e.group && slot == e.slot && word == e.word &&
                damage == e.damage && keyLength == e.keyLength && Arrays.equals(key, e.key);
        }

        @Override
        public int hashCode()
        {
            return Long.hashCode(group) * 31 + slot * 17 + Long.hashCode(word) * 7 + damage + Arrays.hashCode(key);
        }
    }

    public DamageScanOkMessage
    {
        entries = List.copyOf(entries);
        if (fromGroup < 0 || nextGroup < fromGroup || nextGroup > groupCount || entries.size() > 0xFFFF)
        {
            throw new IllegalArgumentException("DAMAGE_SCAN_OK from group " + fromGroup + " to " + nextGroup +
                " of " + groupCount + " with " + entries.size() + " entries");
        }
    }

    /** Whether the index has been walked to its end. */
    public boolean done()
    {
        return nextGroup == groupCount;
    }

    @Override
    public MessageType type()
    {
        return MessageType.DAMAGE_SCAN_OK;
    }

    @Override
    public int encodedLength()
    {
        int length = ENTRIES_OFFSET;
        for (final Entry e : entries)
        {
            length += e.encodedLength();
        }
        return length;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(fromGroup).u64(nextGroup).u64(groupCount).u16(entries.size()).u16(0).u32(0);
        for (final Entry e : entries)
        {
            writer.u64(e.group()).u64(e.word()).u16(e.slot()).u16(e.damage())
                .u16(e.keyLength() < 0 ? KEY_UNREADABLE : e.keyLength()).u16(e.key.length).bytes(e.key);
        }
    }

    static DamageScanOkMessage decode(final MessageReader reader, final long requestId)
    {
        final long from = reader.u64("from group");
        final long next = reader.u64("next group");
        final long groups = reader.u64("group count");
        final int count = reader.u16("count");
        reader.u16("reserved");
        reader.u32("reserved");
        final List<Entry> entries = new ArrayList<>(Math.min(count, 256));
        for (int i = 0; i < count; i++)
        {
            if (reader.remaining() < ENTRY_FIXED_LENGTH)
            {
                throw new MalformedMessageException(BAD_LENGTH, "DAMAGE_SCAN_OK too short for entry " + i + " of " +
                    count);
            }
            final long group = reader.u64("entry group");
            final long word = reader.u64("entry word");
            final int slot = reader.u16("entry slot");
            final int damage = reader.u16("entry damage");
            final int keyLength = reader.u16("entry key length");
            final int shown = reader.length(reader.u16("entry key shown"), MAX_KEY_SHOWN, "entry key");
            entries.add(new Entry(group, slot, word, damage, keyLength == KEY_UNREADABLE ? -1 : keyLength,
                reader.bytes(shown, "entry key")));
        }
        return new DamageScanOkMessage(requestId, from, next, groups, entries);
    }
}
