package io.rdmakv.verbs;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint's encoding, pinned to the diagram in {@link QueuePairEndpoint}'s Javadoc. */
class QueuePairEndpointTest
{
    private static final byte[] GID = {(byte)0xfe, (byte)0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
    private static final long SECRET = 0x8877_6655_4433_2211L;

    @Test
    void ibverbsEndpointKeepsItsLayout()
    {
        final QueuePairEndpoint e = new QueuePairEndpoint("ibverbs", 0x123456, 0xabcdef, 7, GID, 5, "", 0);
        final byte[] bytes = e.toBytes();
        assertEquals(QueuePairEndpoint.FIXED_LENGTH, bytes.length, "no secret, no host");
        final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x5145, b.getShort(0) & 0xffff);
        assertEquals(2, b.get(2));
        assertEquals(5, b.get(3));
        assertEquals(0x123456, b.getInt(4));
        assertEquals(0xabcdef, b.getInt(8));
        assertEquals(7, b.getShort(12));
        assertEquals(0, b.getShort(14));
        assertArrayEquals(GID, Arrays.copyOfRange(bytes, 16, 32));
        assertEquals(0, b.get(32));
        assertEquals(0, e.secret());
        assertEquals(e, QueuePairEndpoint.fromBytes(bytes));
    }

    @Test
    void tcpEndpointCarriesItsSecretAfterTheHost()
    {
        final QueuePairEndpoint e = QueuePairEndpoint.tcp(-7, 99, "10.1.2.3", 40_001, SECRET);
        final byte[] bytes = e.toBytes();
        assertEquals(QueuePairEndpoint.FIXED_LENGTH + 8 + QueuePairEndpoint.TCP_SECRET_LENGTH, bytes.length);
        assertEquals(e.encodedLength(), bytes.length);
        final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, b.get(2));
        assertEquals(-7, b.getInt(4), "a tcp QPN uses all 32 bits");
        assertEquals(40_001, b.getShort(14) & 0xffff);
        assertEquals(8, b.get(32));
        assertEquals(SECRET, b.getLong(33 + 8));

        final QueuePairEndpoint decoded = QueuePairEndpoint.fromBytes(bytes);
        assertEquals(e, decoded);
        assertEquals(SECRET, decoded.secret());
        assertNotEquals(e, QueuePairEndpoint.tcp(-7, 99, "10.1.2.3", 40_001, SECRET + 1), "the secret is compared");
    }

    @Test
    void longestEndpointIsMaxLength()
    {
        final QueuePairEndpoint e = QueuePairEndpoint.tcp(1, 2, "h".repeat(QueuePairEndpoint.MAX_HOST_LENGTH), 3, 4);
        assertEquals(QueuePairEndpoint.MAX_LENGTH, e.toBytes().length);
    }

    @Test
    void tcpEndpointWithoutItsSecretIsTruncated()
    {
        final byte[] bytes = QueuePairEndpoint.tcp(1, 2, "h", 3, SECRET).toBytes();
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> QueuePairEndpoint.fromBytes(Arrays.copyOf(bytes, bytes.length - 1)));
        assertTrue(e.getMessage().contains("secret truncated"), e.getMessage());
    }

    @Test
    void onlyTcpCarriesASecret()
    {
        assertThrows(IllegalArgumentException.class,
            () -> new QueuePairEndpoint("ibverbs", 1, 2, 3, GID, 5, "", 0, SECRET));
    }

    @Test
    void toStringLeavesTheSecretOut()
    {
        final QueuePairEndpoint e = QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 3, SECRET);
        final String text = e.toString();
        assertFalse(text.contains(Long.toString(SECRET)) || text.contains(Long.toHexString(SECRET)) ||
            text.contains(Long.toUnsignedString(SECRET)), text);
    }

    @Test
    void withHostKeepsEverythingElse()
    {
        final QueuePairEndpoint e = QueuePairEndpoint.tcp(1, 2, "client-host", 3, SECRET).withHost("10.0.0.9");
        assertEquals(QueuePairEndpoint.tcp(1, 2, "10.0.0.9", 3, SECRET), e);
    }
}
