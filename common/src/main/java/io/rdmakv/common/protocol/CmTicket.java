package io.rdmakv.common.protocol;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * What a node's HELLO_OK tells a client whose queue pair is to be connected through rdma_cm (kvserver
 * {@code --cm}): the address and port the node's rdma_cm listener takes connect requests on, and a token drawn
 * for this session alone. The client's connect request carries {@link #privateData(long) the session id and the
 * token} as its private data; the node connects the session's queue pair only for a request that names a session
 * its bootstrap admitted, with that session's token, once ({@link #matches}). Whoever has not read the HELLO_OK
 * (which went to the authenticated client alone, over TLS where the bootstrap uses it) cannot forge it.
 *
 * <p>The connect request's private data ({@value #PRIVATE_DATA_LENGTH} bytes, little-endian; over InfiniBand
 * and RoCE the listener receives it padded with zeros to 56):
 * <pre>
 *   0 magic             u32   {@value #MAGIC} ("RCM1")
 *   4 protocol_version  u32
 *   8 session_id        u64   HELLO_OK's
 *  16 token             16 bytes, HELLO_OK's cm_token
 * </pre>
 *
 * @param address where the node's listener is (IPv4 or IPv6)
 * @param port    its rdma_cm port, 1..65535
 * @param token   {@value #TOKEN_LENGTH} random bytes
 */
public record CmTicket(InetAddress address, int port, byte[] token)
{
    public static final int TOKEN_LENGTH = 16;
    /** The bytes of an address in HELLO_OK: IPv6, an IPv4 address as {@code ::ffff:a.b.c.d}. */
    public static final int ADDRESS_LENGTH = 16;
    public static final int PRIVATE_DATA_LENGTH = 32;
    /** "RCM1" in little-endian byte order. */
    public static final int MAGIC = 0x314d4352;

    private static final SecureRandom RANDOM = new SecureRandom();

    public CmTicket
    {
        if (address == null || port < 1 || port > 0xffff)
        {
            throw new IllegalArgumentException("an rdma_cm ticket needs an address and a port 1..65535, not " +
                address + " port " + port);
        }
        if (token == null || token.length != TOKEN_LENGTH)
        {
            throw new IllegalArgumentException("an rdma_cm token has " + TOKEN_LENGTH + " bytes");
        }
        token = token.clone();
    }

    /** A ticket with a fresh token from a {@link SecureRandom}. */
    public static CmTicket issue(final InetSocketAddress listener)
    {
        final byte[] token = new byte[TOKEN_LENGTH];
        RANDOM.nextBytes(token);
        return new CmTicket(listener.getAddress(), listener.getPort(), token);
    }

    @Override
    public byte[] token()
    {
        return token.clone();
    }

    public InetSocketAddress socketAddress()
    {
        return new InetSocketAddress(address, port);
    }

    /** The private data of the connect request for session {@code sessionId}. */
    public byte[] privateData(final long sessionId)
    {
        return ByteBuffer.allocate(PRIVATE_DATA_LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC)
            .putInt(io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.PROTOCOL_VERSION).putLong(sessionId)
            .put(token).array();
    }

    /** A connect request's private data, decoded: what {@link #matches} checks. */
    public record Request(long sessionId, byte[] token)
    {
    }

    /**
     * The session id and token in {@code privateData}, or null when it is not a request of this protocol (too
     * short, another magic or protocol version). Bytes past {@value #PRIVATE_DATA_LENGTH} (the CM's padding) are
     * not looked at.
     */
    public static Request decodeRequest(final byte[] privateData)
    {
        if (privateData == null || privateData.length < PRIVATE_DATA_LENGTH)
        {
            return null;
        }
        final ByteBuffer in = ByteBuffer.wrap(privateData).order(ByteOrder.LITTLE_ENDIAN);
        if (in.getInt() != MAGIC ||
            in.getInt() != io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.PROTOCOL_VERSION)
        {
            return null;
        }
        final long sessionId = in.getLong();
        final byte[] token = new byte[TOKEN_LENGTH];
        in.get(token);
        return new Request(sessionId, token);
    }

    /** Whether {@code request} carries this ticket's token (compared in constant time). */
    public boolean matches(final Request request)
    {
        return request != null && MessageDigest.isEqual(token, request.token());
    }

    /** {@code address} as the 16 bytes HELLO_OK carries. */
    static byte[] addressBytes(final InetAddress address)
    {
        final byte[] raw = address.getAddress();
        if (address instanceof Inet6Address)
        {
            return raw;
        }
        final byte[] mapped = new byte[ADDRESS_LENGTH];
        mapped[10] = (byte)0xff;
        mapped[11] = (byte)0xff;
        System.arraycopy(raw, 0, mapped, 12, 4);
        return mapped;
    }

    /** The 16 bytes of HELLO_OK as an address (an IPv4-mapped one as IPv4). */
    static InetAddress address(final byte[] bytes)
    {
        try
        {
            return InetAddress.getByAddress(bytes); // an Inet4Address for ::ffff:a.b.c.d
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalArgumentException(e); // not for 16 bytes
        }
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof CmTicket t && address.equals(t.address) && port == t.port && Arrays.equals(token, t.token);
    }

    @Override
    public int hashCode()
    {
        return address.hashCode() * 31 + port;
    }

    /** Names the listener, not the token. */
    @Override
    public String toString()
    {
        return "CmTicket{" + address.getHostAddress() + ":" + port + "}";
    }
}
