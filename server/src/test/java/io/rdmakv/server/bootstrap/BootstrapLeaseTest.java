package io.rdmakv.server.bootstrap;

import io.rdmakv.server.health.NodeHealth;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The listener's side of a session's lease, with a short lease and a factory that only records how each
 * session ended: whole HEARTBEATs keep it, silence or a trickle lose it within the timeout, anything else
 * ends it at once, and the connection's end is a departure.
 */
class BootstrapLeaseTest
{
    private static final long LEASE_MS = 300;
    /** Scheduling slack on a loaded 2-core machine. */
    private static final long MARGIN_MS = 700;

    private final BlockingQueue<SessionEnd> ends = new ArrayBlockingQueue<>(8);
    private BootstrapListener listener;

    @BeforeEach
    void start() throws IOException
    {
        listener = new BootstrapListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TimeUnit.MILLISECONDS.toNanos(LEASE_MS),
            (hello, socket) -> new BootstrapListener.Outcome(new StatsMessage(hello.requestId()), ends::add),
            new NodeHealth());
        listener.start();
    }

    @AfterEach
    void stop()
    {
        listener.close();
        listener.closeConnections();
    }

    /** Connects and says HELLO; the factory answers (with a placeholder reply) and the lease starts. */
    private Socket session() throws IOException
    {
        final Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.port());
        socket.setSoTimeout(5_000);
        socket.setTcpNoDelay(true);
        socket.getOutputStream().write(ControlCodec.toBytes(new HelloMessage(7, new byte[0],
            QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 9))));
        final byte[] reply = new byte[16];
        new DataInputStream(socket.getInputStream()).readFully(reply);
        assertEquals(new StatsMessage(7), ControlCodec.fromBytes(reply), "the factory's reply");
        return socket;
    }

    private SessionEnd awaitEnd(final long withinMs) throws InterruptedException
    {
        final SessionEnd end = ends.poll(withinMs, TimeUnit.MILLISECONDS);
        assertNotNull(end, "the session did not end within " + withinMs + " ms");
        return end;
    }

    @Test
    void heartbeatsKeepTheLeaseAcrossManyTimeoutsAndTheEndIsADeparture() throws Exception
    {
        try (Socket socket = session())
        {
            final OutputStream out = socket.getOutputStream();
            final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * LEASE_MS);
            long n = 0;
            while (System.nanoTime() < until)
            {
                out.write(ControlCodec.toBytes(new HeartbeatMessage(++n, 0)));
                Thread.sleep(LEASE_MS / 5);
            }
            assertNull(ends.poll(), "heartbeats every " + LEASE_MS / 5 + " ms keep a " + LEASE_MS + " ms lease");
        }
        final SessionEnd end = awaitEnd(5_000);
        assertEquals(SessionEnd.Kind.CLOSED, end.kind(), end.detail());
    }

    @Test
    void silenceLosesTheLeaseWithinTheTimeoutAndTheSocketIsLeftToTheOwner() throws Exception
    {
        try (Socket socket = session())
        {
            final long t0 = System.nanoTime();
            final SessionEnd end = awaitEnd(LEASE_MS + MARGIN_MS);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(SessionEnd.Kind.LEASE_EXPIRED, end.kind(), end.detail());
            assertTrue(tookMs >= LEASE_MS - 20, "expired after " + tookMs + " ms, before the " + LEASE_MS +
                " ms lease");
            assertTrue(end.detail().contains("lease timeout " + LEASE_MS + " ms"), end.detail());
            socket.setSoTimeout(200);
            assertTrue(stillOpen(socket), "the listener does not close the socket of an expired lease: the " +
                "session's owner fences the session first, then closes it");
        }
    }

    @Test
    void aTrickleOfBytesDoesNotKeepTheLease() throws Exception
    {
        try (Socket socket = session())
        {
            final byte[] heartbeat = ControlCodec.toBytes(new HeartbeatMessage(1, 0));
            final long t0 = System.nanoTime();
            SessionEnd end = null;
            for (int i = 0; end == null; i = (i + 1) % heartbeat.length)
            {
                socket.getOutputStream().write(heartbeat[i]);
                end = ends.poll(LEASE_MS / 6, TimeUnit.MILLISECONDS);
                assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(LEASE_MS + MARGIN_MS),
                    "a byte every " + LEASE_MS / 6 + " ms kept the lease");
            }
            assertEquals(SessionEnd.Kind.LEASE_EXPIRED, end.kind(), end.detail());
            assertTrue(end.detail().contains("bytes of a frame"), end.detail());
        }
    }

    @Test
    void anyOtherFrameEndsTheSessionAtOnce() throws Exception
    {
        try (Socket socket = session())
        {
            socket.getOutputStream().write(ControlCodec.toBytes(new StatsMessage(3)));
            final SessionEnd end = awaitEnd(LEASE_MS / 2);
            assertEquals(SessionEnd.Kind.BAD_FRAME, end.kind(), end.detail());
            assertTrue(end.detail().contains("sent STATS"), end.detail());
        }
        try (Socket socket = session())
        {
            final byte[] garbage = new byte[16];
            garbage[0] = (byte)0xEE;
            socket.getOutputStream().write(garbage);
            final SessionEnd end = awaitEnd(LEASE_MS / 2);
            assertEquals(SessionEnd.Kind.BAD_FRAME, end.kind(), end.detail());
            assertTrue(end.detail().contains("unknown control message type"), end.detail());
        }
    }

    private static boolean stillOpen(final Socket socket) throws IOException
    {
        try
        {
            return socket.getInputStream().read() >= 0;
        }
        catch (final java.net.SocketTimeoutException e)
        {
            return true;
        }
    }
}
