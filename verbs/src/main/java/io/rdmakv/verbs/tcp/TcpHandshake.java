package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * How a {@code tcp} queue pair's requester connection is opened at RTR: the requester connects to the
 * peer device's listener and sends a hello ({@link TcpWire#HANDSHAKE_LENGTH} bytes: magic, target QPN,
 * its own QPN, RNR retry count); the device answers with a status ({@link TcpWire#HANDSHAKE_OK}, an
 * unknown or a busy queue pair) and, on OK, hands the connection to the target's responder.
 */
final class TcpHandshake
{
    /** What a requester's hello asks for. */
    record Hello(int targetQpNum, int rnrRetry)
    {
    }

    private TcpHandshake()
    {
    }

    /**
     * The requester side: connects to {@code remote}'s device, asks for its queue pair and returns the
     * connection, non-blocking, once the device said OK. Throws {@link VerbsException} (as
     * {@code ibv_modify_qp(RTR)}) when it cannot.
     */
    static SocketChannel connect(
        final QueuePairEndpoint remote, final int localQpNum, final int rnrRetry, final int connectTimeoutMs)
    {
        SocketChannel channel = null;
        try
        {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * TcpWire.BUFFER_LENGTH);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 * TcpWire.BUFFER_LENGTH);
            channel.socket().connect(new InetSocketAddress(remote.host(), remote.port()), connectTimeoutMs);
            final ByteBuffer hello = ByteBuffer.allocate(TcpWire.HANDSHAKE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            hello.putInt(TcpWire.HANDSHAKE_MAGIC).putInt(remote.qpNum()).putInt(localQpNum).put((byte)rnrRetry)
                .put((byte)0).putShort((short)0).flip();
            while (hello.hasRemaining())
            {
                channel.write(hello);
            }
            final ByteBuffer reply = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (reply.hasRemaining())
            {
                if (channel.read(reply) < 0)
                {
                    throw new IOException("peer closed the connection during the handshake");
                }
            }
            final int status = reply.getInt(0);
            if (status != TcpWire.HANDSHAKE_OK)
            {
                throw new IOException(status == TcpWire.HANDSHAKE_UNKNOWN_QP ?
                    "peer has no queue pair " + remote.qpNum() : "peer queue pair " + remote.qpNum() +
                    " is already connected or in error");
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

    /** The device side: reads a requester's hello (blocking). */
    static Hello readHello(final SocketChannel channel) throws IOException
    {
        final ByteBuffer hello = ByteBuffer.allocate(TcpWire.HANDSHAKE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        while (hello.hasRemaining())
        {
            if (channel.read(hello) < 0)
            {
                throw new IOException("peer closed during handshake");
            }
        }
        hello.flip();
        if (hello.getInt(0) != TcpWire.HANDSHAKE_MAGIC)
        {
            throw new IOException("not an rdmakv tcp requester");
        }
        return new Hello(hello.getInt(4), hello.get(12));
    }

    /** The device side: answers a hello with {@code status}. */
    static void reply(final SocketChannel channel, final int status) throws IOException
    {
        final ByteBuffer reply = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, status);
        while (reply.hasRemaining())
        {
            channel.write(reply);
        }
    }
}
