package io.rdmakv.systemtests.hardening.handshake;

import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.net.SlowPeer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A raw TCP peer of a node's port that misbehaves on purpose: sits idle, trickles bytes, or sends a
 * {@code tcp} provider hello of its own making. Knows when the node closes the connection.
 */
final class BadPeer implements AutoCloseable
{
    /** The {@code tcp} provider's hello: magic "RKVT", target QPN, source QPN, rnr_retry, 3 reserved, secret. */
    static final int TCP_HELLO_LENGTH = 24;
    static final int TCP_HELLO_MAGIC = 0x54564b52;
    static final int TCP_OK = 0;
    private static final int TIMEOUT_MS = 20_000;

    private final Socket socket;
    private CompletableFuture<Long> closedAt;
    private final long openedAt;

    BadPeer(final String host, final int port)
    {
        socket = new Socket();
        try
        {
            socket.connect(new InetSocketAddress(InetAddress.getByName(host), port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            socket.setTcpNoDelay(true);
        }
        catch (final IOException e)
        {
            LocalCluster.closeAll(socket);
            throw new UncheckedIOException(e);
        }
        openedAt = System.nanoTime();
    }

    /** Connects and does nothing more. */
    static BadPeer idle(final int port)
    {
        return new BadPeer("127.0.0.1", port);
    }

    /** Connects and writes {@code bytes} one at a time, {@code pause} apart, until done or cut off. */
    static BadPeer trickling(final int port, final byte[] bytes, final Duration pause)
    {
        final BadPeer peer = new BadPeer("127.0.0.1", port);
        Thread.ofVirtual().name("trickle-" + port)
            .start(() -> SlowPeer.trickle(peer.socket, bytes, pause.toMillis()));
        return peer;
    }

    /** A {@code tcp} provider hello asking for queue pair {@code target} in the name of {@code source}. */
    static byte[] tcpHello(final int target, final int source, final long secret)
    {
        return ByteBuffer.allocate(TCP_HELLO_LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(TCP_HELLO_MAGIC)
            .putInt(target).putInt(source).put((byte)7).put((byte)0).putShort((short)0).putLong(secret).array();
    }

    /**
     * Sends a {@code tcp} provider hello to {@code host:port} on a fresh connection; returns the device's
     * status (0 = OK), or -1 when it closed the connection without one.
     */
    static int forgeConnect(final String host, final int port, final byte[] hello)
    {
        try (BadPeer peer = new BadPeer(host, port))
        {
            peer.socket.getOutputStream().write(hello);
            final byte[] reply = new byte[4];
            final InputStream in = peer.socket.getInputStream();
            int n = 0;
            while (n < reply.length)
            {
                final int got = in.read(reply, n, reply.length - n);
                if (got < 0)
                {
                    return -1;
                }
                n += got;
            }
            return ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Completes with the milliseconds from connecting to the node closing the connection (end of stream or
     * reset); fails if it stays open for 20 s. Watches from its first call on.
     */
    synchronized CompletableFuture<Long> closedAfterMs()
    {
        if (closedAt == null)
        {
            closedAt = SlowPeer.closedAt(socket, "still open after " + TIMEOUT_MS + " ms");
        }
        return closedAt.thenApply(end -> (end - openedAt) / 1_000_000);
    }

    @Override
    public void close()
    {
        LocalCluster.closeAll(socket);
    }
}
