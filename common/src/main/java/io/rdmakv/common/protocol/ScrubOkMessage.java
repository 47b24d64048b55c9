package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * SCRUB_OK, primary to client: what the scrub pass it asked for did.
 *
 * <pre>
 *  16 backups          u32   backups scrubbed
 *  20 reserved         u32   zero
 *  24 slots            u64   index slots compared
 *  32 blocks           u64   blocks compared byte for byte
 *  40 words_repaired   u64   backup slots put back to the primary's word
 *  48 blocks_repaired  u64   backup blocks written over with the primary's
 *  56 healed_here      u64   the primary's damaged blocks rewritten from a backup's whole copy
 *  64 left_to_writers  u64   differences left to a writer still live on the primary
 *  72 damaged_here     u64   differences left because the primary's own block is damaged and no backup has it whole
 *  80 nanos            u64   how long the pass took
 * </pre>
 */
public record ScrubOkMessage(long requestId, int backups, long slots, long blocks, long wordsRepaired,
    long blocksRepaired, long healedHere, long leftToWriters, long damagedHere, long nanos) implements ControlMessage
{
    public static final int BACKUPS_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int SLOTS_OFFSET = BACKUPS_OFFSET + Long.BYTES;
    public static final int LENGTH = SLOTS_OFFSET + 8 * Long.BYTES;

    @Override
    public MessageType type()
    {
        return MessageType.SCRUB_OK;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(backups).u32(0).u64(slots).u64(blocks).u64(wordsRepaired).u64(blocksRepaired).u64(healedHere).u64(leftToWriters)
            .u64(damagedHere).u64(nanos);
    }

    static ScrubOkMessage decode(final MessageReader reader, final long requestId)
    {
        final int backups = reader.u32("backups");
        reader.u32("reserved");
        return new ScrubOkMessage(requestId, backups, reader.u64("slots"), reader.u64("blocks"),
            reader.u64("words repaired"), reader.u64("blocks repaired"), reader.u64("healed here"),
            reader.u64("left to writers"),
            reader.u64("damaged here"), reader.u64("nanos"));
    }
}
