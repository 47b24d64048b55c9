package io.rdmakv.common.protocol;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.common.layout.RegionHeaderDescriptor;
import io.rdmakv.common.protocol.wire.CodedText;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ControlCodecTest
{
    static List<ControlMessage> messages()
    {
        return Samples.all();
    }

    @Test
    void pinsTheHeader()
    {
        assertEquals(0, MessageHeaderDescriptor.TYPE_OFFSET);
        assertEquals(2, MessageHeaderDescriptor.FLAGS_OFFSET);
        assertEquals(4, MessageHeaderDescriptor.LENGTH_OFFSET);
        assertEquals(8, MessageHeaderDescriptor.REQUEST_ID_OFFSET);
        assertEquals(16, MessageHeaderDescriptor.HEADER_LENGTH);
        assertEquals(4096, MessageHeaderDescriptor.MAX_MESSAGE_LENGTH);
        assertEquals(65536, MessageHeaderDescriptor.MAX_BOOTSTRAP_MESSAGE_LENGTH);
        assertEquals(10, MessageHeaderDescriptor.PROTOCOL_VERSION,
            "10: STATS_OK carries the node's move progress; 9: a block's header is 24 bytes (origin), versions are salted by placement; 8: HEARTBEAT carries an epoch both ways, HELLO_OK the map area, the cluster map (format 3) a segment table, candidate groups lie in segments; 7: the cluster map (format 2) carries its fence epoch, HELLO_OK's flags say whether clients CAS the index or send SLOT_CAS, which exists, and HELLO_OK carries an rdma_cm ticket; 6: ALLOC_OK carries the grant secret, BIND_WINDOW, CHECK_GRANT and REVOKE_GRANT exist; 5: HELLO carries the writer id, FENCE_WRITERS exists; 4: the cluster map may carry replica groups, HELP exists; 3: HELLO_OK carries the cluster map in binary, ALLOC_OK the chunk's write rkey (2: the region header " +
            "and the heartbeat interval, tcp endpoints a secret, HEARTBEAT and REPAIR exist)");
    }

    @Test
    void pinsTypeCodes()
    {
        final String[] names = {"HELLO", "HELLO_OK", "HELLO_REFUSED", "ALLOC", "ALLOC_OK", "ALLOC_FAILED", "FREE",
            "STATS", "STATS_OK", "BYE", "SHUTDOWN", "ERROR", "HEARTBEAT", "REPAIR", "REPAIR_REPLY", "DAMAGE_SCAN",
            "DAMAGE_SCAN_OK", "HELP", "HELP_REPLY", "FENCE_WRITERS", "FENCE_WRITERS_OK", "SCRUB", "SCRUB_OK", "BIND_WINDOW", "WINDOW_BOUND",
            "CHECK_GRANT", "GRANT_CHECKED", "REVOKE_GRANT", "GRANT_REVOKED", "SLOT_CAS", "SLOT_CAS_REPLY", "REBALANCE",
            "REBALANCE_OK"};
        int known = 0;
        for (int code = 1; code <= names.length; code++)
        {
            final String name = names[code - 1];
            assertSame(MessageType.valueOf(name), MessageType.of(code), name);
            assertEquals(code, MessageType.valueOf(name).code(), name);
            known++;
        }
        assertEquals(known, MessageType.values().length);
        assertEquals(null, MessageType.of(0));
        assertEquals(null, MessageType.of(34));
        assertEquals(null, MessageType.of(-1));
    }

    @Test
    void pinsBodyOffsets()
    {
        assertEquals(16, HelloMessage.PROTOCOL_VERSION_OFFSET);
        assertEquals(20, HelloMessage.TOKEN_LENGTH_OFFSET);
        assertEquals(22, HelloMessage.ENDPOINT_LENGTH_OFFSET);
        assertEquals(24, HelloMessage.WRITER_ID_OFFSET);
        assertEquals(32, HelloMessage.TOKEN_OFFSET);
        assertEquals(296, HelloMessage.MAX_ENDPOINT_LENGTH, "a tcp endpoint with the longest host and its secret");

        assertEquals(264, HelloOkMessage.MAP_AREA_OFFSET);
        assertEquals(280, HelloOkMessage.ENDPOINT_OFFSET,
            "HELLO_OK's fixed part: 72 bytes of fields, the header, the rdma_cm port, two reserved fields, token and " +
            "address, the map area's address, length and rkey");
        assertEquals(16, HeartbeatMessage.EPOCH_OFFSET);
        assertEquals(24, HeartbeatMessage.LENGTH);

        assertEquals(16, CodedText.CODE_OFFSET);
        assertEquals(20, CodedText.TEXT_LENGTH_OFFSET);
        assertEquals(24, CodedText.TEXT_OFFSET);
        assertEquals(24, AllocMessage.LENGTH);
        assertEquals(32, AllocOkMessage.WRITE_RKEY_OFFSET);
        assertEquals(36, AllocOkMessage.RESERVED_OFFSET);
        assertEquals(40, AllocOkMessage.GRANT_SECRET_OFFSET);
        assertEquals(48, AllocOkMessage.LENGTH);
        assertEquals(16, GrantMessage.WRITER_ID_OFFSET);
        assertEquals(24, GrantMessage.SESSION_ID_OFFSET);
        assertEquals(32, GrantMessage.OFFSET_OFFSET);
        assertEquals(40, GrantMessage.LENGTH_OFFSET);
        assertEquals(48, GrantMessage.SECRET_OFFSET);
        assertEquals(56, GrantMessage.LENGTH);
        assertEquals(16, GrantReplyMessage.VALUE_OFFSET);
        assertEquals(24, GrantReplyMessage.LENGTH);
        assertEquals(16, FreeMessage.COUNT_OFFSET);
        assertEquals(24, FreeMessage.ENTRIES_OFFSET);
        assertEquals(12, FreeMessage.ENTRY_LENGTH);
        assertEquals(8, FreeMessage.ENTRY_LENGTH_OFFSET);
        assertEquals(339, FreeMessage.MAX_ENTRIES);
        assertTrue(FreeMessage.lengthFor(FreeMessage.MAX_ENTRIES) <= 4096);
        assertTrue(FreeMessage.lengthFor(FreeMessage.MAX_ENTRIES + 1) > 4096);
        assertEquals(64, StatsOkMessage.GRANTS_OFFSET);
        assertEquals(72, StatsOkMessage.WRITE_WINDOWS_OFFSET);
        assertEquals(80, StatsOkMessage.COPY_BATCH_OFFSET);
        assertEquals(104, StatsOkMessage.SOURCE_BATCH_OFFSET);
        assertEquals(112, StatsOkMessage.SOURCE_KEYS_OFFSET);
        assertEquals(120, StatsOkMessage.LENGTH);

        assertEquals(16, RepairMessage.GROUP_OFFSET);
        assertEquals(24, RepairMessage.SLOT_OFFSET);
        assertEquals(26, RepairMessage.KEY_LENGTH_OFFSET);
        assertEquals(32, RepairMessage.WORD_OFFSET);
        assertEquals(40, RepairMessage.KEY_OFFSET);
        assertEquals(1064, RepairMessage.MAX_LENGTH);
        assertEquals(18, RepairReplyMessage.DAMAGE_OFFSET);
        assertEquals(20, RepairReplyMessage.CODE_OFFSET);
        assertEquals(24, RepairReplyMessage.RETRY_AFTER_OFFSET);
        assertEquals(28, RepairReplyMessage.TEXT_LENGTH_OFFSET);
        assertEquals(32, RepairReplyMessage.TEXT_OFFSET);
        assertEquals(32, DamageScanMessage.LENGTH);
        assertEquals(40, DamageScanOkMessage.COUNT_OFFSET);
        assertEquals(48, DamageScanOkMessage.ENTRIES_OFFSET);
        assertTrue(DamageScanOkMessage.ENTRIES_OFFSET + BucketDescriptor.SLOTS_PER_GROUP *
            (DamageScanOkMessage.ENTRY_FIXED_LENGTH + DamageScanOkMessage.MAX_KEY_SHOWN) <= 4096,
            "a page holds a whole group of entries with the longest keys shown");
    }

    @Test
    void encodesAllocByteForByte()
    {
        final byte[] bytes = ControlCodec.toBytes(new AllocMessage(0x0102030405060708L, 0x100000));
        assertEquals(
            "0400" + "0000" + "18000000" + "0807060504030201" + "0000100000000000",
            HexFormat.of().formatHex(bytes));
    }

    @Test
    void encodesTheThreeCodedRefusalsByteForByteUnderTheirOwnTypes()
    {
        // type, length 28, request id 5; code 10 (BAD_FREE), text length 4, reserved, "oops"
        final String body = "1c000000" + "0500000000000000" + "0a000000" + "0400" + "0000" + "6f6f7073";
        final CodedRefusalMessage[] refusals = {CodedRefusalMessage.helloRefused(5, ReasonCode.BAD_FREE, "oops"),
            CodedRefusalMessage.allocFailed(5, ReasonCode.BAD_FREE, "oops"),
            CodedRefusalMessage.error(5, ReasonCode.BAD_FREE, "oops")};
        final String[] types = {"0300", "0600", "0c00"};
        for (int i = 0; i < refusals.length; i++)
        {
            final byte[] bytes = ControlCodec.toBytes(refusals[i]);
            assertEquals(types[i] + "0000" + body, HexFormat.of().formatHex(bytes), refusals[i].type().name());
            final ControlMessage decoded = ControlCodec.fromBytes(bytes);
            assertEquals(refusals[i], decoded);
            assertSame(decoded, CodedRefusalMessage.as(refusals[i].type(), decoded));
            assertEquals(null, CodedRefusalMessage.as(refusals[(i + 1) % 3].type(), decoded), "another type's");
        }
        assertThrows(IllegalArgumentException.class, () -> new CodedRefusalMessage(MessageType.HELLO_OK, 1, 1, ""),
            "only the three coded refusals");
        assertThrows(IllegalArgumentException.class,
            () -> CodedRefusalMessage.expect(MessageType.ERROR, new HeartbeatMessage(1, 0)));
    }

    @Test
    void encodesAllocOkWithItsWriteRkeyByteForByte()
    {
        final byte[] bytes = ControlCodec.toBytes(new AllocOkMessage(9, 0x40, 0x1000, 0xA1B2C3D4));
        assertEquals(
            "0500" + "0000" + "30000000" + "0900000000000000" + "4000000000000000" + "0010000000000000" +
            "d4c3b2a1" + "00000000" + "0000000000000000",
            HexFormat.of().formatHex(bytes));
        assertEquals(0xA1B2C3D4, ((AllocOkMessage)ControlCodec.fromBytes(bytes)).writeRkey(),
            "an rkey with its top bit set is an rkey, not a negative number to refuse");
    }

    @Test
    void encodesHelloOkFieldsWhereTheDiagramSays()
    {
        final HelloOkMessage message = Samples.helloOk();
        final MemorySegment s = MemorySegment.ofArray(ControlCodec.toBytes(message));
        assertEquals(MessageHeaderDescriptor.PROTOCOL_VERSION, s.get(LittleEndian.U32, 16));
        assertEquals(Samples.SERVER.encodedLength(), LittleEndian.u16(s, 20));
        assertEquals(0x1111, s.get(LittleEndian.U32, 40));
        assertEquals(0x2222, s.get(LittleEndian.U32, 44));
        assertEquals(0x5E55_1000L, s.get(LittleEndian.U64, 64));
        assertEquals(100_000_000L, s.get(LittleEndian.U64, 72));
        assertEquals(500, s.get(LittleEndian.U32, 84), "heartbeat_interval_ms where the reserved word was");
        final RegionHeader header = new RegionHeader().wrap(s.asSlice(88, RegionHeaderDescriptor.USED_LENGTH));
        assertEquals(RegionHeaderDescriptor.MAGIC, header.magic(), "the region header travels as it lies in memory");
        assertEquals(RegionHeaderDescriptor.LAYOUT_VERSION, header.layoutVersion());
        assertEquals(1, header.nodeId());
        assertEquals(Samples.GEOMETRY, header.geometry());
        assertEquals(Samples.MAP, message.clusterMap());
        assertEquals(0, LittleEndian.u16(s, 22), "cm_port 0: connected by exchange");
        assertArrayEquals(new byte[32], s.asSlice(224, 32).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
            "no rdma_cm token or address");
    }

    @Test
    void encodesTheRdmaCmTicketOfHelloOkWhereTheDiagramSays() throws Exception
    {
        final HelloOkMessage message = Samples.helloOkThroughRdmaCm();
        final byte[] bytes = ControlCodec.toBytes(message);
        final MemorySegment s = MemorySegment.ofArray(bytes);
        assertEquals(0, LittleEndian.u16(s, 22), "the flags: one-sided writes");
        assertEquals(4791, LittleEndian.u16(s, 224));
        assertEquals(0, LittleEndian.u16(s, 226));
        assertEquals(0, s.get(LittleEndian.U32, 228));
        assertArrayEquals(Samples.CM_TOKEN, s.asSlice(232, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertEquals("00000000000000000000ffff0a4d0001",
            HexFormat.of().formatHex(s.asSlice(248, 16).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)),
            "an IPv4 address as ::ffff:a.b.c.d");
        final HelloOkMessage decoded = (HelloOkMessage)ControlCodec.fromBytes(bytes);
        assertEquals(message, decoded);
        assertEquals(new java.net.InetSocketAddress("10.77.0.1", 4791), decoded.cmTicket().socketAddress());
        final byte[] reserved = bytes.clone();
        reserved[229] = 1;
        assertThrows(io.rdmakv.common.protocol.wire.MalformedMessageException.class,
            () -> ControlCodec.fromBytes(reserved), "reserved bytes after the cm port must be zero");
        assertTrue(decoded.cmTicket().address() instanceof java.net.Inet4Address);
    }

    @Test
    void encodesHeartbeatWithItsEpochByteForByte()
    {
        final byte[] bytes = ControlCodec.toBytes(new HeartbeatMessage(0x0102030405060708L, 0x1122334455667788L));
        assertEquals("0d00" + "0000" + "18000000" + "0807060504030201" + "8877665544332211",
            HexFormat.of().formatHex(bytes));
        assertEquals(new HeartbeatMessage(0x0102030405060708L, 0x1122334455667788L), ControlCodec.fromBytes(bytes));
        assertTrue(MessageType.HEARTBEAT.isFixedLength());
    }

    @Test
    void refusesAHeartbeatWithoutItsEpochOrWithAnEpochOverTheLimit()
    {
        final byte[] bytes = ControlCodec.toBytes(new HeartbeatMessage(1, 5));
        final byte[] headerOnly = java.util.Arrays.copyOf(bytes, 16);
        MemorySegment.ofArray(headerOnly).set(LittleEndian.U32, MessageHeaderDescriptor.LENGTH_OFFSET, 16);
        assertEquals(MalformedMessageException.Kind.BAD_LENGTH,
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(headerOnly)).kind(),
            "a protocol 7 heartbeat (header alone)");
        MemorySegment.ofArray(bytes).set(LittleEndian.U64, HeartbeatMessage.EPOCH_OFFSET, -1L);
        final MalformedMessageException e =
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(bytes));
        assertEquals(MalformedMessageException.Kind.BAD_FIELD, e.kind());
        assertTrue(e.getMessage().contains("18446744073709551615"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new HeartbeatMessage(1, -1));
    }

    @Test
    void encodesTheMapAreaOfHelloOkWhereTheDiagramSays()
    {
        final HelloOkMessage message = Samples.helloOkWithMapArea();
        final byte[] bytes = ControlCodec.toBytes(message);
        final MemorySegment s = MemorySegment.ofArray(bytes);
        assertEquals(0x7f10_0000_1000L, s.get(LittleEndian.U64, 264));
        assertEquals(io.rdmakv.common.layout.MapAreaDescriptor.LENGTH, s.get(LittleEndian.U32, 272));
        assertEquals(0x8000_3333, s.get(LittleEndian.U32, 276));
        assertEquals(Samples.SERVER.encodedLength(), LittleEndian.u16(s, 20));
        final HelloOkMessage decoded = (HelloOkMessage)ControlCodec.fromBytes(bytes);
        assertEquals(message, decoded);
        assertEquals(message.mapArea(), decoded.mapArea());

        final byte[] none = ControlCodec.toBytes(Samples.helloOk());
        assertArrayEquals(new byte[16], java.util.Arrays.copyOfRange(none, 264, 280), "no map area: all zero");
        assertEquals(null, ((HelloOkMessage)ControlCodec.fromBytes(none)).mapArea());

        final byte[] shortArea = bytes.clone();
        MemorySegment.ofArray(shortArea).set(LittleEndian.U32, 272, 4096);
        assertEquals(MalformedMessageException.Kind.BAD_FIELD,
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(shortArea)).kind());
        final byte[] lengthOnly = none.clone();
        MemorySegment.ofArray(lengthOnly).set(LittleEndian.U32, 272, 1);
        assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(lengthOnly),
            "an area with a length and no address is no area and not none");
        final byte[] huge = bytes.clone();
        MemorySegment.ofArray(huge).set(LittleEndian.U32, 272, -1);
        assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(huge));
    }

    @Test
    void refusesHelloOkOfAnotherLayoutVersionNamingBoth()
    {
        final byte[] bytes = ControlCodec.toBytes(Samples.helloOk());
        MemorySegment.ofArray(bytes).set(LittleEndian.U32, 88 + RegionHeaderDescriptor.LAYOUT_VERSION_OFFSET, 1);
        final MalformedMessageException e =
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(bytes));
        assertEquals(MalformedMessageException.Kind.BAD_VERSION, e.kind());
        assertTrue(e.getMessage().contains("layout version 1") &&
            e.getMessage().contains("layout version " + RegionHeaderDescriptor.LAYOUT_VERSION), e.getMessage());
    }

    @Test
    void refusesHelloOkWhoseHeaderIsNoRegionHeader()
    {
        final byte[] bytes = ControlCodec.toBytes(Samples.helloOk());
        MemorySegment.ofArray(bytes).set(LittleEndian.U64, 88, 0x1234L);
        final MalformedMessageException e =
            assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(bytes));
        assertEquals(MalformedMessageException.Kind.BAD_FIELD, e.kind());
        assertTrue(e.getMessage().contains("magic"), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("messages")
    void readsOneFramedMessageFromAStreamAndStopsAtItsEnd(final ControlMessage message) throws IOException
    {
        final byte[] bytes = ControlCodec.toBytes(message);
        final byte[] twice = Arrays.copyOf(bytes, 2 * bytes.length);
        System.arraycopy(bytes, 0, twice, bytes.length, bytes.length);
        final ByteArrayInputStream in = new ByteArrayInputStream(twice);
        assertArrayEquals(bytes, ControlCodec.readFrame(in));
        assertEquals(message, ControlCodec.read(in));
        assertEquals(-1, in.read());
        assertThrows(EOFException.class,
            () -> ControlCodec.readFrame(new ByteArrayInputStream(Arrays.copyOf(bytes, bytes.length - 1))));
    }

    @ParameterizedTest
    @MethodSource("messages")
    void roundTripsThroughSegmentsBuffersAndArrays(final ControlMessage message)
    {
        final byte[] bytes = ControlCodec.toBytes(message);
        assertEquals(message.encodedLength(), bytes.length);
        assertEquals(message, ControlCodec.fromBytes(bytes));
        assertEquals(message.type().code(), MessageHeaderDescriptor.type(MemorySegment.ofArray(bytes), 0));
        assertEquals(message.requestId(), MessageHeaderDescriptor.requestId(MemorySegment.ofArray(bytes), 0));

        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(70_000);
            final int length = ControlCodec.encode(message, segment, 13);
            assertEquals(bytes.length, length);
            assertEquals(length, ControlCodec.checkHeader(segment, 13, 16));
            // the bytes after the message (the next one on a stream) are ignored
            assertEquals(message, ControlCodec.decode(segment, 13, length + 100));
        }

        final ByteBuffer buffer = ByteBuffer.allocateDirect(70_000).position(50).limit(60);
        assertEquals(bytes.length, ControlCodec.encode(message, buffer, 7));
        assertEquals(message, ControlCodec.decode(buffer, 7, bytes.length));
        assertEquals(50, buffer.position(), "position untouched");
        assertEquals(60, buffer.limit(), "limit untouched");
    }

    @Test
    void recordsCopyTheirArrays()
    {
        final long[] offsets = {64};
        final int[] lengths = {64};
        final FreeMessage free = new FreeMessage(1, offsets, lengths);
        offsets[0] = 128;
        free.offsets()[0] = 256;
        assertEquals(64, free.offset(0));
        final byte[] token = {1, 2};
        final HelloMessage hello = new HelloMessage(1, token, Samples.CLIENT);
        token[0] = 9;
        assertArrayEquals(new byte[] {1, 2}, hello.authToken());
    }

    @Test
    void encodingChecksRoomAndLimits()
    {
        final MemorySegment small = MemorySegment.ofArray(new byte[20]);
        final String message = assertThrows(
            IllegalArgumentException.class, () -> ControlCodec.encode(new AllocMessage(1, 64), small, 0)).getMessage();
        assertEquals("ALLOC message of 24 bytes does not fit at 0 in 20 bytes", message);
        assertThrows(IllegalArgumentException.class, () -> ControlCodec.encode(new StatsMessage(1), small, 10));
        assertThrows(IllegalArgumentException.class, () -> new FreeMessage(1, new long[340], new int[340]));
        assertThrows(IllegalArgumentException.class, () -> new FreeMessage(1, new long[0], new int[0]));
        assertThrows(IllegalArgumentException.class, () -> new FreeMessage(1, new long[2], new int[1]));
        assertThrows(IllegalArgumentException.class, () -> new AllocMessage(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new HelloMessage(1, new byte[257], Samples.CLIENT));
        assertThrows(IllegalArgumentException.class, () -> new HelloMessage(1, new byte[1], null));
        assertThrows(IllegalArgumentException.class, () -> new HelloMessage(1, 0L, new byte[1], Samples.CLIENT));
        assertThrows(IllegalArgumentException.class, () -> new FenceWritersMessage(1, new long[0]));
        assertThrows(IllegalArgumentException.class, () -> new FenceWritersMessage(1, new long[] {5, 0}));
        assertThrows(IllegalArgumentException.class,
            () -> new FenceWritersMessage(1, new long[FenceWritersMessage.MAX_WRITERS + 1]));
        assertEquals(4096, ControlCodec.toBytes(new FenceWritersMessage(1, java.util.stream.LongStream
            .rangeClosed(1, FenceWritersMessage.MAX_WRITERS).toArray())).length, "the most writers fill a message");
        assertNotEquals(HelloMessage.newWriterId(), HelloMessage.newWriterId(), "each client draws its own");
    }

    @Test
    void longTextIsCutAtACharacterBoundary()
    {
        final String text = "é".repeat(1000);
        final CodedRefusalMessage error = CodedRefusalMessage.error(1, ReasonCode.INTERNAL, text);
        assertEquals(512, error.text().length());
        assertEquals(CodedText.TEXT_OFFSET + 1024, error.encodedLength());
        final String odd = "x" + "é".repeat(1000);
        assertEquals(1 + 511, CodedRefusalMessage.error(1, 1, odd).text().length());
        assertEquals("", CodedRefusalMessage.error(1, 1, null).text());
        assertEquals(error, ControlCodec.fromBytes(ControlCodec.toBytes(error)));
        assertEquals(ReasonCode.INTERNAL, error.reason());
        assertEquals(null, CodedRefusalMessage.error(1, 999, "").reason());
        assertEquals("code 999", ReasonCode.describe(999));
        assertEquals("BAD_FREE", ReasonCode.describe(10));
    }

    @Test
    void bytesBeyondTheSegmentAreTheCallersMistake()
    {
        final byte[] bytes = ControlCodec.toBytes(new StatsMessage(1));
        assertThrows(IllegalArgumentException.class, () -> ControlCodec.decode(MemorySegment.ofArray(bytes), 0, 17));
        assertThrows(IllegalArgumentException.class, () -> ControlCodec.decode(MemorySegment.ofArray(bytes), -1, 4));
        assertEquals(new StatsMessage(1), ControlCodec.decode(MemorySegment.ofArray(Arrays.copyOf(bytes, 40)), 0, 40));
    }
}
