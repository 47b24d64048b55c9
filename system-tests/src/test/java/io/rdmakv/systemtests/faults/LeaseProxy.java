package io.rdmakv.systemtests.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay in front of a node's bootstrap port, listed in the cluster map as the node's address, so
 * every session's bootstrap connection (the server's lease on the client) runs through it. {@link
 * #dropAll()} cuts them all, as a broken network path or a firewall reset would; the node then tears
 * the sessions down. The queue pairs' own connections do not pass through here.
 */
public final class LeaseProxy implements AutoCloseable
{
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile int targetPort;
    private volatile boolean closed;

    public LeaseProxy()
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

    public int port()
    {
        return listener.getLocalPort();
    }

    /** Starts relaying accepted connections to 127.0.0.1:{@code target}. */
    public void start(final int target)
    {
        targetPort = target;
        Thread.ofVirtual().name("lease-proxy-" + port()).start(this::acceptLoop);
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            try
            {
                final Socket client = listener.accept();
                final Socket server = new Socket();
                sockets.add(client);
                sockets.add(server);
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                Thread.ofVirtual().start(() -> pump(client, server));
                Thread.ofVirtual().start(() -> pump(server, client));
            }
            catch (final IOException e)
            {
                if (!closed)
                {
                    System.err.println("lease proxy: " + e.getMessage());
                }
            }
        }
    }

    private void pump(final Socket from, final Socket to)
    {
        final byte[] buffer = new byte[8192];
        try
        {
            final InputStream in = from.getInputStream();
            final OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0)
            {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
        catch (final IOException ignore)
        {
            // one side went away: the relay ends, both sides close
        }
        finally
        {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Relayed connections whose client side is still open. */
    public int openConnections()
    {
        int n = 0;
        for (final Socket s : sockets)
        {
            if (!s.isClosed() && s.getLocalPort() == port())
            {
                n++;
            }
        }
        return n;
    }

    /** Cuts every relayed connection; returns how many connections (client sides) were open. */
    public int dropAll()
    {
        int n = 0;
        for (final Socket s : sockets)
        {
            if (!s.isClosed() && s.getLocalPort() == port())
            {
                n++;
            }
            closeQuietly(s);
        }
        sockets.clear();
        return n;
    }

    private static void closeQuietly(final Socket s)
    {
        try
        {
            s.close();
        }
        catch (final IOException ignore)
        {
            // already gone
        }
    }

    @Override
    public void close()
    {
        closed = true;
        try
        {
            listener.close();
        }
        catch (final IOException ignore)
        {
            // closing
        }
        dropAll();
    }
}
