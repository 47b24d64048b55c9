package io.rdmakv.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the peer of an RC queue pair needs to connect to it, exchanged out of band (over a TCP
 * bootstrap connection). Holds the fields of both providers: {@code ibverbs} uses the QP number,
 * PSN, LID, GID and MTU; {@code tcp} uses the QP number, PSN, host, port and secret.
 *
 * <pre>
 *  0 magic   u16 (0x5145, "QE")     2 provider u8 (1 = tcp, 2 = ibverbs)  3 mtu u8 (enum ibv_mtu)
 *  4 qp_num  u32                    8 psn u32                            12 lid u16
 * 14 port    u16                   16 gid [16]                           32 host_len u8, host (UTF-8)
 * tcp only, after the host:
 * 33 + host_len  secret u64
 * </pre>
 *
 * The {@code tcp} secret is the queue pair's proof of connection: 64 random bits (SecureRandom) that only
 * the queue pair's owner and the peer it hands this endpoint to (over the authenticated bootstrap) know.
 * The peer's requester presents it when it connects to the queue pair's device, which refuses any other
 * value; {@link #toString()} never prints it. {@code ibverbs} endpoints carry none (secret 0, not encoded):
 * a NIC checks the peer's QPN and address itself.
 */
public record QueuePairEndpoint(
    String provider, int qpNum, int psn, int lid, byte[] gid, int mtu, String host, int port, long secret)
{
    public static final int MAGIC = 0x5145;
    public static final int FIXED_LENGTH = 33;
    public static final int MAX_HOST_LENGTH = 255;
    /** Bytes of the secret a {@code tcp} endpoint carries after its host. */
    public static final int TCP_SECRET_LENGTH = 8;
    /** The longest encoding: a {@code tcp} endpoint with the longest host. */
    public static final int MAX_LENGTH = FIXED_LENGTH + MAX_HOST_LENGTH + TCP_SECRET_LENGTH;

    public QueuePairEndpoint
    {
        if (!"tcp".equals(provider) && !"ibverbs".equals(provider))
        {
            throw new IllegalArgumentException("unknown provider " + provider);
        }
        gid = gid == null ? new byte[16] : gid.clone();
        if (gid.length != 16)
        {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + gid.length);
        }
        host = host == null ? "" : host;
        if (host.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_LENGTH)
        {
            throw new IllegalArgumentException("host name longer than " + MAX_HOST_LENGTH + " bytes");
        }
        if (secret != 0 && !isTcp(provider))
        {
            throw new IllegalArgumentException("only a tcp endpoint carries a secret");
        }
    }

    /** An endpoint without a secret: any {@code ibverbs} one; a {@code tcp} one no device accepts a connection for. */
    public QueuePairEndpoint(final String provider, final int qpNum, final int psn, final int lid, final byte[] gid,
        final int mtu, final String host, final int port)
    {
        this(provider, qpNum, psn, lid, gid, mtu, host, port, 0L);
    }

    public static QueuePairEndpoint tcp(
        final int qpNum, final int psn, final String host, final int port, final long secret)
    {
        return new QueuePairEndpoint("tcp", qpNum, psn, 0, null, 0, host, port, secret);
    }

    /** A {@code tcp} endpoint with secret 0, which no device accepts: for messages that are only encoded. */
    public static QueuePairEndpoint tcp(final int qpNum, final int psn, final String host, final int port)
    {
        return tcp(qpNum, psn, host, port, 0L);
    }

    /** This endpoint with {@code host} in place of its own (e.g. the address a name was checked to denote). */
    public QueuePairEndpoint withHost(final String host)
    {
        return new QueuePairEndpoint(provider, qpNum, psn, lid, gid, mtu, host, port, secret);
    }

    private static boolean isTcp(final String provider)
    {
        return "tcp".equals(provider);
    }

    @Override
    public byte[] gid()
    {
        return gid.clone();
    }

    public int encodedLength()
    {
        return FIXED_LENGTH + host.getBytes(StandardCharsets.UTF_8).length + (isTcp(provider) ? TCP_SECRET_LENGTH : 0);
    }

    public ByteBuffer encode(final ByteBuffer dst)
    {
        final byte[] hostBytes = host.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer b = dst.order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short)MAGIC).put((byte)("tcp".equals(provider) ? 1 : 2)).put((byte)mtu)
            .putInt(qpNum).putInt(psn).putShort((short)lid).putShort((short)port).put(gid)
            .put((byte)hostBytes.length).put(hostBytes);
        if (isTcp(provider))
        {
            b.putLong(secret);
        }
        return dst;
    }

    public byte[] toBytes()
    {
        final ByteBuffer b = ByteBuffer.allocate(encodedLength());
        encode(b);
        return b.array();
    }

    /** Decodes an endpoint; throws {@link IllegalArgumentException} naming what is wrong with the bytes. */
    public static QueuePairEndpoint decode(final ByteBuffer src)
    {
        final ByteBuffer b = src.order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < FIXED_LENGTH)
        {
            throw new IllegalArgumentException("queue pair endpoint truncated: " + b.remaining() + " bytes");
        }
        final int magic = b.getShort() & 0xffff;
        if (magic != MAGIC)
        {
            throw new IllegalArgumentException("not a queue pair endpoint: magic 0x" + Integer.toHexString(magic));
        }
        final int kind = b.get();
        final String provider = switch (kind)
        {
            case 1 -> "tcp";
            case 2 -> "ibverbs";
            default -> throw new IllegalArgumentException("unknown provider code " + kind);
        };
        final int mtu = b.get() & 0xff;
        final int qpNum = b.getInt();
        final int psn = b.getInt();
        final int lid = b.getShort() & 0xffff;
        final int port = b.getShort() & 0xffff;
        final byte[] gid = new byte[16];
        b.get(gid);
        final int hostLength = b.get() & 0xff;
        if (b.remaining() < hostLength)
        {
            throw new IllegalArgumentException("queue pair endpoint host truncated");
        }
        final byte[] host = new byte[hostLength];
        b.get(host);
        long secret = 0;
        if (isTcp(provider))
        {
            if (b.remaining() < TCP_SECRET_LENGTH)
            {
                throw new IllegalArgumentException("tcp queue pair endpoint secret truncated");
            }
            secret = b.getLong();
        }
        return new QueuePairEndpoint(
            provider, qpNum, psn, lid, gid, mtu, new String(host, StandardCharsets.UTF_8), port, secret);
    }

    public static QueuePairEndpoint fromBytes(final byte[] bytes)
    {
        return decode(ByteBuffer.wrap(bytes));
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof QueuePairEndpoint e && provider.equals(e.provider) && qpNum == e.qpNum && psn == e.psn &&
            lid == e.lid && Arrays.equals(gid, e.gid) && mtu == e.mtu && host.equals(e.host) && port == e.port &&
            secret == e.secret;
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * qpNum + psn) + Arrays.hashCode(gid) + host.hashCode() + port;
    }

    /** Leaves the secret out: endpoints appear in logs and error messages. */
    @Override
    public String toString()
    {
        return "tcp".equals(provider) ?
            "QueuePairEndpoint{tcp qpn=" + qpNum + " psn=" + psn + " " + host + ":" + port + "}" :
            "QueuePairEndpoint{ibverbs qpn=" + qpNum + " psn=" + psn + " lid=" + lid + " gid=" +
            HexFormat.of().formatHex(gid) + " mtu=" + mtu + "}";
    }
}
