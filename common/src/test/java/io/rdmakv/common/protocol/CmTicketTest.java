package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rdma_cm ticket of HELLO_OK and the connect request's private data: what the node's check relies on. */
class CmTicketTest
{
    private static final InetSocketAddress LISTENER = new InetSocketAddress("10.77.0.1", 20000);

    @Test
    void privateDataIsLaidOutAsDocumented()
    {
        final CmTicket ticket = new CmTicket(LISTENER.getAddress(), 20000, Samples.CM_TOKEN);
        final byte[] data = ticket.privateData(0x0102030405060708L);
        assertEquals(CmTicket.PRIVATE_DATA_LENGTH, data.length);
        assertTrue(data.length <= 56, "fits a connect request on every transport");
        assertEquals("52434d31", HexFormat.of().formatHex(data, 0, 4), "magic RCM1");
        assertEquals(MessageHeaderDescriptor.PROTOCOL_VERSION,
            ByteBuffer.wrap(data, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
        assertEquals("0807060504030201", HexFormat.of().formatHex(data, 8, 16));
        assertArrayEquals(Samples.CM_TOKEN, Arrays.copyOfRange(data, 16, 32));
    }

    @Test
    void aRequestWithTheTicketsTokenMatchesEvenPaddedAsInfinibandPadsIt()
    {
        final CmTicket ticket = CmTicket.issue(LISTENER);
        final byte[] padded = Arrays.copyOf(ticket.privateData(42), 56);
        final CmTicket.Request request = CmTicket.decodeRequest(padded);
        assertNotNull(request);
        assertEquals(42, request.sessionId());
        assertTrue(ticket.matches(request));
    }

    @Test
    void anotherTokenOrNoneDoesNotMatch()
    {
        final CmTicket ticket = CmTicket.issue(LISTENER);
        final CmTicket other = CmTicket.issue(LISTENER);
        assertFalse(Arrays.equals(ticket.token(), other.token()), "tokens are drawn per session");
        assertFalse(ticket.matches(CmTicket.decodeRequest(other.privateData(42))));
        final byte[] flipped = ticket.privateData(42);
        flipped[31] ^= 1;
        assertFalse(ticket.matches(CmTicket.decodeRequest(flipped)));
        assertFalse(ticket.matches(null));
    }

    @Test
    void privateDataOfAnotherKindIsNoRequest()
    {
        final byte[] good = CmTicket.issue(LISTENER).privateData(7);
        assertNull(CmTicket.decodeRequest(null));
        assertNull(CmTicket.decodeRequest(new byte[0]));
        assertNull(CmTicket.decodeRequest(Arrays.copyOf(good, 31)), "too short");
        assertNull(CmTicket.decodeRequest(new byte[56]), "zeros: no magic");
        final byte[] badMagic = good.clone();
        badMagic[0] = 'X';
        assertNull(CmTicket.decodeRequest(badMagic));
        final byte[] otherVersion = good.clone();
        otherVersion[4]++;
        assertNull(CmTicket.decodeRequest(otherVersion), "a client of another protocol version");
    }

    @Test
    void refusesABadTicket() throws Exception
    {
        final InetAddress address = InetAddress.getByName("10.77.0.1");
        assertThrows(IllegalArgumentException.class, () -> new CmTicket(address, 0, new byte[16]));
        assertThrows(IllegalArgumentException.class, () -> new CmTicket(address, 65536, new byte[16]));
        assertThrows(IllegalArgumentException.class, () -> new CmTicket(address, 1, new byte[15]));
        assertThrows(IllegalArgumentException.class, () -> new CmTicket(null, 1, new byte[16]));
    }

    @Test
    void theTokenIsCopiedInAndOutAndNotPrinted()
    {
        final byte[] token = Samples.CM_TOKEN.clone();
        final CmTicket ticket = new CmTicket(LISTENER.getAddress(), 1, token);
        token[0] ^= 1;
        ticket.token()[1] ^= 1;
        assertArrayEquals(Samples.CM_TOKEN, ticket.token());
        assertFalse(ticket.toString().contains("0011"), ticket.toString());
    }

    @Test
    void ipv6AddressesTravelAsTheyAre() throws Exception
    {
        final InetAddress v6 = InetAddress.getByName("fd00::1");
        assertEquals(v6, CmTicket.address(CmTicket.addressBytes(v6)));
        final InetAddress v4 = InetAddress.getByName("192.0.2.7");
        assertEquals(v4, CmTicket.address(CmTicket.addressBytes(v4)));
    }
}
