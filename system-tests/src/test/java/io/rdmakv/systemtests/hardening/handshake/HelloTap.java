package io.rdmakv.systemtests.hardening.handshake;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A relay in front of a node's bootstrap port (listed in the cluster map as the node) that reads what an
 * eavesdropper on the bootstrap would: the first session's HELLO (the client's queue pair endpoint) and
 * HELLO_OK (the node's), and holds that HELLO_OK back until {@link #release()}, so a test can act in the
 * window between the node's queue pair going to RTS and the client's connecting to it.
 */
final class HelloTap implements AutoCloseable
{
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final CompletableFuture<QueuePairEndpoint> clientEndpoint = new CompletableFuture<>();
    private final CompletableFuture<QueuePairEndpoint> nodeEndpoint = new CompletableFuture<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean closed;

    HelloTap()
    {
        try
        {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    int port()
    {
        return listener.getLocalPort();
    }

    /** The client's queue pair endpoint from the first HELLO. */
    CompletableFuture<QueuePairEndpoint> clientEndpoint()
    {
        return clientEndpoint;
    }

    /** The node's queue pair endpoint from the first HELLO_OK, which is held until {@link #release()}. */
    CompletableFuture<QueuePairEndpoint> nodeEndpoint()
    {
        return nodeEndpoint;
    }

    void release()
    {
        released.countDown();
    }

    /** Relays connections to 127.0.0.1:{@code target}. */
    void start(final int target)
    {
        Thread.ofVirtual().name("hello-tap-" + port()).start(() ->
        {
            while (!closed)
            {
                try
                {
                    final Socket client = listener.accept();
                    final Socket node = new Socket();
                    sockets.add(client);
                    sockets.add(node);
                    node.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5_000);
                    Thread.ofVirtual().start(() -> relay(client, node, false));
                    Thread.ofVirtual().start(() -> relay(node, client, true));
                }
                catch (final IOException e)
                {
                    if (!closed)
                    {
                        System.err.println("hello tap: " + e.getMessage());
                    }
                }
            }
        });
    }

    private void relay(final Socket from, final Socket to, final boolean fromNode)
    {
        try
        {
            final InputStream in = from.getInputStream();
            final OutputStream out = to.getOutputStream();
            final byte[] first = readMessage(in);
            final ControlMessage message = ControlCodec.fromBytes(first);
            if (message instanceof HelloMessage hello && !fromNode)
            {
                clientEndpoint.complete(hello.endpoint());
            }
            if (message instanceof HelloOkMessage ok && fromNode && nodeEndpoint.complete(ok.serverEndpoint()))
            {
                released.await();
            }
            out.write(first);
            in.transferTo(out);
        }
        catch (final IOException | RuntimeException | InterruptedException e)
        {
            // either side ended: end both
        }
        finally
        {
            LocalCluster.closeAll(from, to);
        }
    }

    private static byte[] readMessage(final InputStream stream) throws IOException
    {
        return ControlCodec.readFrame(stream);
    }

    @Override
    public void close()
    {
        closed = true;
        release();
        LocalCluster.closeAll(listener);
        sockets.forEach(LocalCluster::closeAll);
    }
}
