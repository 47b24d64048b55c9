package io.rdmakv.common.protocol;

import io.rdmakv.common.layout.RegionHeaderDescriptor;

import io.rdmakv.common.protocol.wire.CodedText;
import io.rdmakv.common.protocol.wire.MalformedMessageException.Kind;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;

import static io.rdmakv.common.protocol.WireEdits.malformed;
import static io.rdmakv.common.protocol.WireEdits.withU16;
import static io.rdmakv.common.protocol.WireEdits.withU32;
import static io.rdmakv.common.protocol.WireEdits.withU64;
import static io.rdmakv.common.protocol.WireEdits.resized;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class MalformedMessageTest
{
    private static byte[] bytes(final ControlMessage message)
    {
        return ControlCodec.toBytes(message);
    }

    @Test
    void truncatedHeader()
    {
        final MalformedMessageException ex = malformed(new byte[10], Kind.TRUNCATED);
        assertEquals("control message truncated: 10 bytes, a header has 16", ex.getMessage());
        malformed(new byte[0], Kind.TRUNCATED);
    }

    @Test
    void truncatedBody()
    {
        final byte[] alloc = bytes(new AllocMessage(1, 64));
        final MalformedMessageException ex = malformed(alloc, 20, Kind.TRUNCATED);
        assertEquals("ALLOC message of 24 bytes truncated to 20", ex.getMessage());
        final byte[] hello = bytes(new HelloMessage(1, new byte[10], Samples.CLIENT));
        malformed(hello, hello.length - 1, Kind.TRUNCATED);
    }

    @Test
    void unknownType()
    {
        final byte[] stats = bytes(new StatsMessage(1));
        assertEquals("unknown control message type 99", malformed(withU16(stats, 0, 99), Kind.BAD_TYPE).getMessage());
        malformed(withU16(stats, 0, 0), Kind.BAD_TYPE);
        malformed(withU16(stats, 0, 0xFFFF), Kind.BAD_TYPE);
    }

    @Test
    void lengthThatDisagreesWithAFixedLengthType()
    {
        final MalformedMessageException ex = malformed(resized(bytes(new AllocMessage(1, 64)), 32), Kind.BAD_LENGTH);
        assertEquals("ALLOC message length 32, must be 24", ex.getMessage());
        malformed(resized(bytes(new StatsMessage(1)), 20), Kind.BAD_LENGTH);
        malformed(resized(bytes(new StatsOkMessage(1, 1, 1, 1, 1, 1, 1, 1, 1)), 72), Kind.BAD_LENGTH);
        // a version 9 STATS_OK (no move progress) is not read as one that moves nothing
        malformed(resized(bytes(new StatsOkMessage(1, 1, 1, 1, 1, 1, 1, 1, 1)), StatsOkMessage.COPY_BATCH_OFFSET),
            Kind.BAD_LENGTH);
        malformed(withU32(bytes(new ByeMessage(1)), MessageHeaderDescriptor.LENGTH_OFFSET, 8), Kind.BAD_LENGTH);
        malformed(resized(bytes(new HeartbeatMessage(1, 0)), 16), Kind.BAD_LENGTH);
        malformed(resized(bytes(new HeartbeatMessage(1, 0)), 32), Kind.BAD_LENGTH);
        // a version 2 ALLOC_OK (no write rkey) is not read as one with a zero rkey, nor a version 5 one (no grant
        // secret) as one without a secret
        final MalformedMessageException oldAllocOk = malformed(
            resized(bytes(new AllocOkMessage(1, 64, 64, 7)), 32), Kind.BAD_LENGTH);
        assertEquals("ALLOC_OK message length 32, must be 48", oldAllocOk.getMessage());
        malformed(resized(bytes(new AllocOkMessage(1, 64, 64, 7, 9)), 40), Kind.BAD_LENGTH);
        malformed(resized(bytes(GrantMessage.bind(1, 2, 64, 64, 3)), 48), Kind.BAD_LENGTH);
        malformed(resized(bytes(GrantReplyMessage.bound(1, 3)), 20), Kind.BAD_LENGTH);
    }

    @Test
    void lengthOutsideAVariableTypesBounds()
    {
        final byte[] error = bytes(CodedRefusalMessage.error(1, 1, "x"));
        malformed(resized(error, 20), Kind.BAD_LENGTH);
        final MalformedMessageException ex = malformed(
            withU32(error, MessageHeaderDescriptor.LENGTH_OFFSET, 5000), Kind.BAD_LENGTH);
        assertEquals("ERROR message length 5000 outside 24..4096", ex.getMessage());
        // a u32 length over 2^31 is a length, not a negative number
        malformed(withU32(error, MessageHeaderDescriptor.LENGTH_OFFSET, -1), Kind.BAD_LENGTH);
        final byte[] helloOk = bytes(Samples.helloOk());
        malformed(withU32(helloOk, MessageHeaderDescriptor.LENGTH_OFFSET, 70_000), Kind.BAD_LENGTH);
    }

    @Test
    void variableFieldsThatDisagreeWithTheLength()
    {
        final byte[] error = bytes(CodedRefusalMessage.error(1, 1, "hello"));
        final MalformedMessageException longer = malformed(
            withU16(error, CodedText.TEXT_LENGTH_OFFSET, 6), Kind.BAD_LENGTH);
        assertEquals("ERROR message too short for its text: needs 6 more bytes, has 5", longer.getMessage());
        final MalformedMessageException shorter = malformed(
            withU16(error, CodedText.TEXT_LENGTH_OFFSET, 4), Kind.BAD_LENGTH);
        assertEquals("ERROR message has 1 bytes after its last field", shorter.getMessage());

        final byte[] hello = bytes(new HelloMessage(1, new byte[4], Samples.CLIENT));
        malformed(withU16(hello, HelloMessage.TOKEN_LENGTH_OFFSET, 5), Kind.BAD_LENGTH);
        malformed(withU16(hello, HelloMessage.ENDPOINT_LENGTH_OFFSET, 100), Kind.BAD_LENGTH);
        malformed(resized(hello, hello.length + 3), Kind.BAD_LENGTH);

        final byte[] free = bytes(new FreeMessage(1, new long[] {64, 128}, new int[] {64, 64}));
        final MalformedMessageException entries = malformed(withU32(free, FreeMessage.COUNT_OFFSET, 3), Kind.BAD_LENGTH);
        assertEquals("FREE of 3 entries needs 36 bytes of entries, has 24", entries.getMessage());
        malformed(resized(free, free.length + 12), Kind.BAD_LENGTH);
        malformed(resized(free, free.length - 1), Kind.BAD_LENGTH);
    }

    @Test
    void oversizedCountsAndFields()
    {
        final byte[] free = bytes(new FreeMessage(1, new long[] {64}, new int[] {64}));
        final MalformedMessageException count = malformed(withU32(free, FreeMessage.COUNT_OFFSET, 340), Kind.OVERSIZED);
        assertEquals("FREE of 340 entries: must be 1..339", count.getMessage());
        malformed(withU32(free, FreeMessage.COUNT_OFFSET, -1), Kind.OVERSIZED);

        final byte[] hello = bytes(new HelloMessage(1, new byte[4], Samples.CLIENT));
        final MalformedMessageException token = malformed(
            withU16(hello, HelloMessage.TOKEN_LENGTH_OFFSET, 300), Kind.OVERSIZED);
        assertEquals("HELLO auth token of 300 bytes is over the limit of 256", token.getMessage());
        malformed(withU16(hello, HelloMessage.ENDPOINT_LENGTH_OFFSET, HelloMessage.MAX_ENDPOINT_LENGTH + 1),
            Kind.OVERSIZED);

        malformed(withU16(bytes(CodedRefusalMessage.error(1, 1, "x")), CodedText.TEXT_LENGTH_OFFSET, 2000), Kind.OVERSIZED);

        final byte[] helloOk = bytes(Samples.helloOk());
        malformed(withU32(helloOk, 80, 1 << 20), Kind.OVERSIZED);
        malformed(withU32(helloOk, 80, -5), Kind.OVERSIZED);
    }

    @Test
    void otherProtocolVersions()
    {
        final byte[] hello = bytes(new HelloMessage(1, new byte[4], Samples.CLIENT));
        final MalformedMessageException ex = malformed(
            withU32(hello, HelloMessage.PROTOCOL_VERSION_OFFSET, 1), Kind.BAD_VERSION);
        assertEquals("HELLO of protocol version 1: this build speaks version " +
            io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.PROTOCOL_VERSION, ex.getMessage());
        // a HELLO of another version is refused on its version, whatever follows
        malformed(
            withU16(withU32(hello, HelloMessage.PROTOCOL_VERSION_OFFSET,
                io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.PROTOCOL_VERSION + 1),
                HelloMessage.TOKEN_LENGTH_OFFSET, 999),
            Kind.BAD_VERSION);
        malformed(withU32(bytes(Samples.helloOk()), 16, 0), Kind.BAD_VERSION);
        malformed(bytes(new HelloMessage(1, io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.PROTOCOL_VERSION + 1,
            5L, new byte[0], Samples.CLIENT)), Kind.BAD_VERSION);
    }

    @Test
    void fieldValuesNoMessageHas()
    {
        final byte[] hello = bytes(new HelloMessage(1, new byte[0], Samples.CLIENT));
        final byte[] badEndpoint = withU16(hello, HelloMessage.TOKEN_OFFSET, 0x1234);
        final MalformedMessageException ex = malformed(badEndpoint, Kind.BAD_FIELD);
        assertTrue(ex.getMessage().startsWith("HELLO endpoint: not a queue pair endpoint"), ex.getMessage());
        // an endpoint followed by junk inside its declared length
        final byte[] padded = bytes(new HelloMessage(1, new byte[2], Samples.CLIENT));
        final byte[] shifted = withU16(
            withU16(padded, HelloMessage.TOKEN_LENGTH_OFFSET, 0), HelloMessage.ENDPOINT_LENGTH_OFFSET,
            Samples.CLIENT.encodedLength() + 2);
        malformed(shifted, Kind.BAD_FIELD);
        // writer 0 names no client: a HELLO of it, or a FENCE_WRITERS naming it, is refused
        malformed(withU64(hello, HelloMessage.WRITER_ID_OFFSET, 0), Kind.BAD_FIELD);
        final byte[] fence = bytes(new FenceWritersMessage(1, new long[] {7, 8}));
        malformed(withU64(fence, FenceWritersMessage.WRITERS_OFFSET + Long.BYTES, 0), Kind.BAD_FIELD);
        malformed(withU32(fence, FenceWritersMessage.COUNT_OFFSET, 0), Kind.BAD_FIELD);
        malformed(withU32(fence, FenceWritersMessage.COUNT_OFFSET, 3), Kind.BAD_LENGTH);
        malformed(withU32(fence, FenceWritersMessage.COUNT_OFFSET, FenceWritersMessage.MAX_WRITERS + 1),
            Kind.OVERSIZED);

        final byte[] helloOk = bytes(Samples.helloOk());
        final MalformedMessageException geometry = malformed(
            withU32(helloOk, 88 + RegionHeaderDescriptor.SLOTS_PER_BUCKET_OFFSET, 8), Kind.BAD_FIELD);
        assertTrue(geometry.getMessage().contains("slots per bucket 8 is not 7"), geometry.getMessage());
        malformed(withU32(helloOk, 56, 12), Kind.BAD_FIELD);
        final MalformedMessageException heartbeat = malformed(withU32(helloOk, 84, -1), Kind.BAD_FIELD);
        assertTrue(heartbeat.getMessage().contains("heartbeat interval of 4294967295 ms"), heartbeat.getMessage());

        final byte[] alloc = bytes(new AllocMessage(1, 64));
        malformed(withU32(alloc, AllocMessage.REQUESTED_BYTES_OFFSET, 0), Kind.BAD_FIELD);
        final byte[] free = bytes(new FreeMessage(1, new long[] {64}, new int[] {64}));
        malformed(withU32(free, FreeMessage.ENTRIES_OFFSET + FreeMessage.ENTRY_LENGTH_OFFSET, -64), Kind.BAD_FIELD);
        malformed(resized(withU32(free, FreeMessage.COUNT_OFFSET, 0), FreeMessage.ENTRIES_OFFSET), Kind.BAD_FIELD);

        final byte[] statsOk = bytes(new StatsOkMessage(1, 1, 1, 1, 1, 1, 1, 1, StatsOkMessage.NO_WINDOWS));
        final MalformedMessageException windows = malformed(
            withU64(statsOk, StatsOkMessage.WRITE_WINDOWS_OFFSET, -2), Kind.BAD_FIELD);
        assertEquals("STATS_OK: write windows -2: a count, or -1", windows.getMessage());
        malformed(withU64(statsOk, StatsOkMessage.COPY_BATCH_OFFSET, -2), Kind.BAD_FIELD);
        malformed(withU64(statsOk, StatsOkMessage.COPY_KEYS_OFFSET, -1), Kind.BAD_FIELD);
        malformed(withU64(statsOk, StatsOkMessage.COPY_BYTES_OFFSET, Long.MIN_VALUE), Kind.BAD_FIELD);
        malformed(withU64(statsOk, StatsOkMessage.SOURCE_BATCH_OFFSET, -7), Kind.BAD_FIELD);
        final MalformedMessageException sourceKeys = malformed(
            withU64(statsOk, StatsOkMessage.SOURCE_KEYS_OFFSET, -2), Kind.BAD_FIELD);
        assertTrue(sourceKeys.getMessage().startsWith("STATS_OK: move progress: "), sourceKeys.getMessage());

        final byte[] allocOk = bytes(new AllocOkMessage(1, 64, 64, 0x1234_5678));
        final MalformedMessageException reserved = malformed(
            withU32(allocOk, AllocOkMessage.RESERVED_OFFSET, 1), Kind.BAD_FIELD);
        assertEquals("ALLOC_OK: reserved field is 1, must be 0", reserved.getMessage());
        malformed(withU64(allocOk, AllocOkMessage.CHUNK_LENGTH_OFFSET, 0), Kind.BAD_FIELD);
        malformed(withU64(allocOk, AllocOkMessage.CHUNK_OFFSET_OFFSET, -64), Kind.BAD_FIELD);

        final byte[] bind = bytes(GrantMessage.bind(1, 2, 64, 64, 3));
        assertEquals("BIND_WINDOW: BIND_WINDOW with a zero secret (no grant has one)",
            malformed(withU64(bind, GrantMessage.SECRET_OFFSET, 0), Kind.BAD_FIELD).getMessage());
        malformed(withU64(bind, GrantMessage.LENGTH_OFFSET, 0), Kind.BAD_FIELD);
        malformed(withU64(bind, GrantMessage.WRITER_ID_OFFSET, 5), Kind.BAD_FIELD);
        final byte[] check = bytes(GrantMessage.check(1, 7, GrantMessage.bind(1, 2, 64, 64, 3)));
        malformed(withU64(check, GrantMessage.WRITER_ID_OFFSET, 0), Kind.BAD_FIELD);
        final byte[] revoke = bytes(GrantMessage.revoke(1, 2, 3));
        malformed(withU64(revoke, GrantMessage.OFFSET_OFFSET, 64), Kind.BAD_FIELD);
        final byte[] checked = bytes(GrantReplyMessage.checked(1, true));
        assertEquals("GRANT_CHECKED: GRANT_CHECKED of 2, must be 0 or 1",
            malformed(withU32(checked, GrantReplyMessage.VALUE_OFFSET, 2), Kind.BAD_FIELD).getMessage());
        malformed(withU32(checked, GrantReplyMessage.VALUE_OFFSET + 4, 1), Kind.BAD_FIELD);
    }

    @Test
    void checkHeaderNeedsOnlyTheHeader()
    {
        final byte[] helloOk = bytes(Samples.helloOk());
        assertEquals(helloOk.length, ControlCodec.checkHeader(MemorySegment.ofArray(helloOk), 0, 16));
        assertThrows(
            MalformedMessageException.class, () -> ControlCodec.checkHeader(MemorySegment.ofArray(helloOk), 0, 15));
    }

    /** Corrupted and cut messages: only MalformedMessageException, or a valid message, ever comes out. */
    @Test
    void corruptionNeverEscapesAsAnotherException()
    {
        final Random random = new Random(7);
        final List<ControlMessage> samples = Samples.all();
        for (int round = 0; round < 30_000; round++)
        {
            final byte[] bytes = ControlCodec.toBytes(samples.get(random.nextInt(samples.size())));
            final int flips = 1 + random.nextInt(4);
            for (int i = 0; i < flips; i++)
            {
                final int at = random.nextInt(Math.min(bytes.length, 200));
                bytes[at] = random.nextInt(3) == 0 ? (byte)random.nextInt() : (byte)(bytes[at] ^ (1 << random.nextInt(8)));
            }
            final int available = random.nextInt(4) == 0 ? random.nextInt(bytes.length + 1) : bytes.length;
            try
            {
                ControlCodec.decode(MemorySegment.ofArray(bytes), 0, available);
            }
            catch (final MalformedMessageException expected)
            {
                assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty());
            }
            catch (final RuntimeException ex)
            {
                fail("round " + round + " escaped as " + ex, ex);
            }
        }
    }
}
