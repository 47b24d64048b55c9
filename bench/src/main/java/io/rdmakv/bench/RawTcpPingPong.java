package io.rdmakv.bench;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The floor the {@code tcp} provider is measured against: a plain TCP ping-pong on loopback with the
 * same socket settings and the same threading (an echo thread blocking in read, the client busy-polling
 * a non-blocking socket), so the ratio isolates what the verbs layer adds.
 */
final class RawTcpPingPong implements AutoCloseable
{
    private final ServerSocketChannel listener;
    private final SocketChannel client;
    private final Thread echo;
    private final ByteBuffer out;
    private final ByteBuffer in;

    RawTcpPingPong(final int messageLength) throws IOException
    {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        client = SocketChannel.open(listener.getLocalAddress());
        client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        final SocketChannel server = listener.accept();
        server.setOption(StandardSocketOptions.TCP_NODELAY, true);
        client.configureBlocking(false);
        out = ByteBuffer.allocateDirect(messageLength);
        in = ByteBuffer.allocateDirect(messageLength);
        echo = Thread.ofPlatform().daemon().name("raw-tcp-echo").start(() -> echoLoop(server, messageLength));
    }

    private static void echoLoop(final SocketChannel server, final int messageLength)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(messageLength);
        try (server)
        {
            while (true)
            {
                buffer.clear();
                while (buffer.hasRemaining())
                {
                    if (server.read(buffer) < 0)
                    {
                        return;
                    }
                }
                buffer.flip();
                while (buffer.hasRemaining())
                {
                    server.write(buffer);
                }
            }
        }
        catch (final IOException e)
        {
            // the client closed: done
        }
    }

    void roundTrip() throws IOException
    {
        out.clear();
        while (out.hasRemaining())
        {
            client.write(out);
        }
        in.clear();
        while (in.hasRemaining())
        {
            if (client.read(in) < 0)
            {
                throw new IOException("echo closed");
            }
        }
    }

    Histogram measure(final int warmup, final int iterations) throws IOException
    {
        for (int i = 0; i < warmup; i++)
        {
            roundTrip();
        }
        final Histogram h = new Histogram(3_600_000_000_000L, 3);
        for (int i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            roundTrip();
            h.recordValue(System.nanoTime() - t0);
        }
        return h;
    }

    @Override
    public void close() throws IOException
    {
        client.close();
        listener.close();
        try
        {
            echo.join(1000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
