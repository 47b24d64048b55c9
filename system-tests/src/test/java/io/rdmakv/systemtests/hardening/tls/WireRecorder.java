package io.rdmakv.systemtests.hardening.tls;

import io.rdmakv.systemtests.LocalCluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback relay in front of a node's bootstrap port that passes every byte on, both ways, and keeps a copy
 * of everything: what an eavesdropper on the bootstrap network would read.
 */
final class WireRecorder implements AutoCloseable
{
    private final ServerSocket listener;
    private final int target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ByteArrayOutputStream seen = new ByteArrayOutputStream();
    private volatile boolean closed;

    WireRecorder(final int targetPort)
    {
        target = targetPort;
        try
        {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().name("wire-recorder").start(this::accept);
    }

    int port()
    {
        return listener.getLocalPort();
    }

    /** Every byte relayed so far, both directions. */
    synchronized byte[] bytes()
    {
        return seen.toByteArray();
    }

    private void accept()
    {
        while (!closed)
        {
            try
            {
                final Socket client = listener.accept();
                final Socket node = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(client);
                sockets.add(node);
                Thread.ofVirtual().start(() -> pump(client, node));
                Thread.ofVirtual().start(() -> pump(node, client));
            }
            catch (final IOException e)
            {
                return; // closed
            }
        }
    }

    private void pump(final Socket from, final Socket to)
    {
        final byte[] buffer = new byte[4096];
        try
        {
            final InputStream in = from.getInputStream();
            final OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0)
            {
                synchronized (this)
                {
                    seen.write(buffer, 0, n);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        }
        catch (final IOException e)
        {
            LocalCluster.closeAll(from, to);
        }
    }

    @Override
    public void close()
    {
        closed = true;
        LocalCluster.closeAll(listener);
        sockets.forEach(LocalCluster::closeAll);
    }
}
