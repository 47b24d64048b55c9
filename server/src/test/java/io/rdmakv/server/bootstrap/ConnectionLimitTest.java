package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bootstrap listener holds at most its limit of connections and closes the rest at accept. */
class ConnectionLimitTest
{
    private static final int WAIT_MS = 10_000;

    @Test
    void slotsAreTakenUpToTheLimitGivenBackAndRefusalsCounted()
    {
        final ConnectionLimit limit = new ConnectionLimit(2);
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        assertFalse(limit.tryAcquire());
        assertFalse(limit.tryAcquire());
        assertEquals(2, limit.open());
        assertEquals(2, limit.refused());
        limit.release();
        assertTrue(limit.tryAcquire(), "a slot given back is taken again");
        limit.release();
        limit.release();
        assertEquals(0, limit.open());
        assertThrows(IllegalStateException.class, limit::release, "no slot to give back");
        assertEquals(0, limit.open());
        assertThrows(IllegalArgumentException.class, () -> new ConnectionLimit(0));
    }

    @Test
    void overTheLimitAConnectionIsClosedAtOnceAndOnceASlotIsFreeANewOneIsAnswered() throws Exception
    {
        final ConnectionLimit limit = new ConnectionLimit(2);
        final BootstrapListener listener = new BootstrapListener(new InetSocketAddress(InetAddress.getLoopbackAddress(),
            0), null, TimeUnit.SECONDS.toNanos(3), Duration.ofSeconds(30), (hello, socket) ->
            new BootstrapListener.Outcome(CodedRefusalMessage.helloRefused(hello.requestId(), ReasonCode.SHUTTING_DOWN.code(),
                "test"), null), new NodeHealth(), limit);
        listener.start();
        try (Socket idle1 = connect(listener); Socket idle2 = connect(listener))
        {
            waitFor(() -> limit.open() == 2);
            try (Socket over = connect(listener))
            {
                assertClosedByNode(over);
            }
            assertEquals(1, limit.refused());
            idle1.close();
            waitFor(() -> limit.open() == 1);
            try (Socket good = connect(listener))
            {
                good.getOutputStream().write(ControlCodec.toBytes(new HelloMessage(9, new byte[0],
                    QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 3, 4))));
                assertEquals(9, CodedRefusalMessage.expect(MessageType.HELLO_REFUSED,
                    ControlCodec.read(good.getInputStream())).requestId(), "answered");
            }
            waitFor(() -> limit.open() == 1);
            assertEquals(1, limit.refused());
        }
        finally
        {
            listener.close();
            listener.closeConnections();
        }
    }

    private static void assertClosedByNode(final Socket socket) throws IOException
    {
        try
        {
            assertEquals(-1, socket.getInputStream().read(), "closed without a reply");
        }
        catch (final SocketException reset)
        {
            // closed: a reset is as good as an end of stream
        }
    }

    private static void waitFor(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "condition not met within " + WAIT_MS + " ms");
            Thread.sleep(10);
        }
    }

    private static Socket connect(final BootstrapListener listener) throws IOException
    {
        final Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.port()), WAIT_MS);
        socket.setSoTimeout(WAIT_MS);
        return socket;
    }
}
