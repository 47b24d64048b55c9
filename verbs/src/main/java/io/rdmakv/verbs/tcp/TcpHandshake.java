package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.resource.VerbsException;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;

/**
 * How a {@code tcp} queue pair's requester connection is opened at RTR: the requester connects to the
 * peer device's listener and sends a hello ({@link TcpWire#HANDSHAKE_LENGTH} bytes: magic, target QPN,
 * its own QPN, RNR retry count, the target's secret); the device answers with a status and, on OK, hands
 * the connection to the target's responder. Both sides run against one deadline for the whole exchange,
 * not per read: a peer that trickles bytes gains nothing.
 */
final class TcpHandshake
{
    /** What a requester's hello asks for. */
    record Hello(int targetQpNum, int sourceQpNum, int rnrRetry, long secret)
    {
    }

    private TcpHandshake()
    {
    }

    /**
     * The requester side: connects to {@code remote}'s device, presents the target's secret and returns the
     * connection, non-blocking, once the device said OK; all within {@code timeoutMs}. Throws
     * {@link VerbsException} (as {@code ibv_modify_qp(RTR)}) when it cannot.
     */
    static SocketChannel connect(
        final QueuePairEndpoint remote, final int localQpNum, final int rnrRetry, final int timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        SocketChannel channel = null;
        try
        {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * TcpWire.BUFFER_LENGTH);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 * TcpWire.BUFFER_LENGTH);
            channel.socket().connect(new InetSocketAddress(remote.host(), remote.port()), timeoutMs);
            final ByteBuffer hello = ByteBuffer.allocate(TcpWire.HANDSHAKE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            hello.putInt(TcpWire.HANDSHAKE_MAGIC).putInt(remote.qpNum()).putInt(localQpNum).put((byte)rnrRetry)
                .put((byte)0).putShort((short)0).putLong(remote.secret()).flip();
            while (hello.hasRemaining())
            {
                channel.write(hello);
            }
            final ByteBuffer reply = ByteBuffer.allocate(TcpWire.HANDSHAKE_REPLY_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            readFully(channel, reply, deadline);
            final int status = reply.getInt(0);
            if (status != TcpWire.HANDSHAKE_OK)
            {
                throw new IOException(status == TcpWire.HANDSHAKE_QP_BUSY ? "peer queue pair " + remote.qpNum() +
                    " is already connected or in error" : "peer device refused the connection");
            }
            channel.configureBlocking(false);
            return channel;
        }
        catch (final IOException | RuntimeException e)
        {
            CloseHelper.quietClose(channel);
            throw new VerbsException("ibv_modify_qp(RTR)", "cannot connect to " + remote + ": " + e.getMessage(), e);
        }
    }

    /**
     * The device side: reads a requester's hello from a blocking channel by {@code deadline}
     * ({@link System#nanoTime()}). Throws {@link SocketTimeoutException} when the deadline passes,
     * {@link ProtocolException} when the bytes are not a hello, another {@link IOException} when the peer
     * goes away.
     */
    static Hello readHello(final SocketChannel channel, final long deadline) throws IOException
    {
        final ByteBuffer hello = ByteBuffer.allocate(TcpWire.HANDSHAKE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        readFully(channel, hello, deadline);
        if (hello.getInt(0) != TcpWire.HANDSHAKE_MAGIC)
        {
            throw new ProtocolException("not an rdmakv tcp requester");
        }
        return new Hello(hello.getInt(TcpWire.HANDSHAKE_TARGET_OFFSET), hello.getInt(TcpWire.HANDSHAKE_SOURCE_OFFSET),
            hello.get(TcpWire.HANDSHAKE_RNR_RETRY_OFFSET), hello.getLong(TcpWire.HANDSHAKE_SECRET_OFFSET));
    }

    /** Compares two secrets in constant time: a wrong guess takes as long however many bits it got right. */
    static boolean sameSecret(final long expected, final long presented)
    {
        final byte[] a = new byte[Long.BYTES];
        final byte[] b = new byte[Long.BYTES];
        for (int i = 0; i < Long.BYTES; i++)
        {
            a[i] = (byte)(expected >>> (8 * i));
            b[i] = (byte)(presented >>> (8 * i));
        }
        return MessageDigest.isEqual(a, b);
    }

    /** The device side: answers a hello with {@code status}. */
    static void reply(final SocketChannel channel, final int status) throws IOException
    {
        final ByteBuffer reply = ByteBuffer.allocate(TcpWire.HANDSHAKE_REPLY_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(0, status);
        while (reply.hasRemaining())
        {
            channel.write(reply);
        }
    }

    /**
     * Fills {@code dst} (a heap buffer) from a blocking channel, each read waiting only as long as is left
     * until {@code deadline}: the deadline bounds the whole read, however the bytes arrive.
     */
    private static void readFully(final SocketChannel channel, final ByteBuffer dst, final long deadline)
        throws IOException
    {
        final Socket socket = channel.socket();
        final InputStream in = socket.getInputStream();
        while (dst.hasRemaining())
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                throw new SocketTimeoutException("handshake deadline passed");
            }
            socket.setSoTimeout((int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            final int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
            if (n < 0)
            {
                throw new EOFException("peer closed the connection during the handshake");
            }
            dst.position(dst.position() + n);
        }
    }
}
