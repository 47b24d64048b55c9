package io.rdmakv.common.protocol;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertEquals(1, MessageHeaderDescriptor.PROTOCOL_VERSION);
    }

    @Test
    void pinsTypeCodes()
    {
        final MessageType[] types = MessageType.values();
        for (int i = 0; i < types.length; i++)
        {
            assertEquals(i + 1, types[i].code(), types[i].name());
            assertSame(types[i], MessageType.of(i + 1));
        }
        assertEquals(12, types.length);
        assertEquals(null, MessageType.of(0));
        assertEquals(null, MessageType.of(13));
        assertEquals(null, MessageType.of(-1));
    }

    @Test
    void pinsBodyOffsets()
    {
        assertEquals(16, HelloMessage.PROTOCOL_VERSION_OFFSET);
        assertEquals(20, HelloMessage.TOKEN_LENGTH_OFFSET);
        assertEquals(22, HelloMessage.ENDPOINT_LENGTH_OFFSET);
        assertEquals(24, HelloMessage.TOKEN_OFFSET);
        assertEquals(288, HelloMessage.MAX_ENDPOINT_LENGTH);

        assertEquals(16, HelloOkMessage.PROTOCOL_VERSION_OFFSET);
        assertEquals(20, HelloOkMessage.NODE_ID_OFFSET);
        assertEquals(24, HelloOkMessage.INDEX_MR_ADDRESS_OFFSET);
        assertEquals(32, HelloOkMessage.INDEX_MR_LENGTH_OFFSET);
        assertEquals(40, HelloOkMessage.INDEX_MR_RKEY_OFFSET);
        assertEquals(44, HelloOkMessage.DATA_MR_RKEY_OFFSET);
        assertEquals(48, HelloOkMessage.DATA_MR_ADDRESS_OFFSET);
        assertEquals(56, HelloOkMessage.DATA_MR_LENGTH_OFFSET);
        assertEquals(64, HelloOkMessage.REGION_LENGTH_OFFSET);
        assertEquals(72, HelloOkMessage.INDEX_OFFSET_OFFSET);
        assertEquals(80, HelloOkMessage.INDEX_LENGTH_OFFSET);
        assertEquals(88, HelloOkMessage.BUCKET_COUNT_OFFSET);
        assertEquals(96, HelloOkMessage.DATA_OFFSET_OFFSET);
        assertEquals(104, HelloOkMessage.DATA_LENGTH_OFFSET);
        assertEquals(112, HelloOkMessage.HEADER_LENGTH_OFFSET);
        assertEquals(116, HelloOkMessage.SLOTS_PER_BUCKET_OFFSET);
        assertEquals(120, HelloOkMessage.BUCKETS_PER_GROUP_OFFSET);
        assertEquals(124, HelloOkMessage.CHUNK_SIZE_OFFSET);
        assertEquals(128, HelloOkMessage.MAX_KEY_LENGTH_OFFSET);
        assertEquals(132, HelloOkMessage.MAX_VALUE_LENGTH_OFFSET);
        assertEquals(136, HelloOkMessage.SESSION_ID_OFFSET);
        assertEquals(144, HelloOkMessage.GRACE_NANOS_OFFSET);
        assertEquals(152, HelloOkMessage.ENDPOINT_LENGTH_OFFSET);
        assertEquals(154, HelloOkMessage.RESERVED_OFFSET);
        assertEquals(156, HelloOkMessage.CLUSTER_MAP_LENGTH_OFFSET);
        assertEquals(160, HelloOkMessage.ENDPOINT_OFFSET);

        assertEquals(16, CodedText.CODE_OFFSET);
        assertEquals(20, CodedText.TEXT_LENGTH_OFFSET);
        assertEquals(24, CodedText.TEXT_OFFSET);
        assertEquals(24, AllocMessage.LENGTH);
        assertEquals(32, AllocOkMessage.LENGTH);
        assertEquals(16, FreeMessage.COUNT_OFFSET);
        assertEquals(24, FreeMessage.ENTRIES_OFFSET);
        assertEquals(12, FreeMessage.ENTRY_LENGTH);
        assertEquals(8, FreeMessage.ENTRY_LENGTH_OFFSET);
        assertEquals(339, FreeMessage.MAX_ENTRIES);
        assertTrue(FreeMessage.lengthFor(FreeMessage.MAX_ENTRIES) <= 4096);
        assertTrue(FreeMessage.lengthFor(FreeMessage.MAX_ENTRIES + 1) > 4096);
        assertEquals(64, StatsOkMessage.GRANTS_OFFSET);
        assertEquals(72, StatsOkMessage.LENGTH);
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
    void encodesHelloOkFieldsWhereTheDiagramSays()
    {
        final HelloOkMessage message = Samples.helloOk();
        final MemorySegment s = MemorySegment.ofArray(ControlCodec.toBytes(message));
        assertEquals(1, s.get(io.rdmakv.common.LittleEndian.U32, HelloOkMessage.NODE_ID_OFFSET));
        assertEquals(0x1111, s.get(io.rdmakv.common.LittleEndian.U32, HelloOkMessage.INDEX_MR_RKEY_OFFSET));
        assertEquals(0x2222, s.get(io.rdmakv.common.LittleEndian.U32, HelloOkMessage.DATA_MR_RKEY_OFFSET));
        assertEquals(
            Samples.GEOMETRY.bucketCount(), s.get(io.rdmakv.common.LittleEndian.U64, HelloOkMessage.BUCKET_COUNT_OFFSET));
        assertEquals(
            Samples.GEOMETRY.chunkSize(), s.get(io.rdmakv.common.LittleEndian.U32, HelloOkMessage.CHUNK_SIZE_OFFSET));
        assertEquals(
            Samples.SERVER.encodedLength(),
            io.rdmakv.common.LittleEndian.u16(s, HelloOkMessage.ENDPOINT_LENGTH_OFFSET));
        assertEquals(Samples.MAP, message.clusterMap());
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
    }

    @Test
    void longTextIsCutAtACharacterBoundary()
    {
        final String text = "é".repeat(1000);
        final ErrorMessage error = new ErrorMessage(1, ReasonCode.INTERNAL, text);
        assertEquals(512, error.text().length());
        assertEquals(CodedText.TEXT_OFFSET + 1024, error.encodedLength());
        final String odd = "x" + "é".repeat(1000);
        assertEquals(1 + 511, new ErrorMessage(1, 1, odd).text().length());
        assertEquals("", new ErrorMessage(1, 1, null).text());
        assertEquals(error, ControlCodec.fromBytes(ControlCodec.toBytes(error)));
        assertEquals(ReasonCode.INTERNAL, error.reason());
        assertEquals(null, new ErrorMessage(1, 999, "").reason());
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
