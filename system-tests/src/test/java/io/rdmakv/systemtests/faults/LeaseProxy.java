package io.rdmakv.systemtests.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
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
    private final Set<Relay> relays = ConcurrentHashMap.newKeySet();
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
                final Relay relay = new Relay(listener.accept(), new Socket());
                relays.add(relay);
                if (closed)
                {
                    relay.close(); // accepted while close() ran: it may have dropped the others already
                    relays.remove(relay);
                    return;
                }
                try
                {
                    relay.server().connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                }
                catch (final IOException e)
                {
                    relay.close();
                    relays.remove(relay);
                    throw e;
                }
                Thread.ofVirtual().start(() -> pump(relay, relay.client(), relay.server()));
                Thread.ofVirtual().start(() -> pump(relay, relay.server(), relay.client()));
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

    private void pump(final Relay relay, final Socket from, final Socket to)
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
            relay.close();
            relays.remove(relay);
        }
    }

    /** Relayed connections whose client side is still open. */
    public int openConnections()
    {
        int n = 0;
        for (final Relay relay : relays)
        {
            if (!relay.client().isClosed())
            {
                n++;
            }
        }
        return n;
    }

    /**
     * Cuts every relayed connection; returns how many connections (client sides) were open. All are counted
     * before any is cut: cutting one side of a relay makes its pump close the other side a moment later, so
     * counting as it cuts (a relay's node side first) could miss a connection that was open.
     */
    public int dropAll()
    {
        final List<Relay> cut = new ArrayList<>(relays);
        int n = 0;
        for (final Relay relay : cut)
        {
            if (!relay.client().isClosed())
            {
                n++;
            }
        }
        for (final Relay relay : cut)
        {
            relay.close();
            relays.remove(relay);
        }
        return n;
    }

    /** One relayed connection: the client's side (accepted here) and the node's side (dialled from here). */
    private record Relay(Socket client, Socket server)
    {
        void close()
        {
            closeQuietly(client);
            closeQuietly(server);
        }
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
