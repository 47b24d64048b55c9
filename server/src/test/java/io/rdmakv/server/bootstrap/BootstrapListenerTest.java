package io.rdmakv.server.bootstrap;

import io.rdmakv.server.health.NodeHealth;

import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.testsupport.net.SlowPeer;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bootstrap listener gives each connection one deadline for its whole HELLO, and idle peers stall no one. */
class BootstrapListenerTest
{
    private static final Duration DEADLINE = Duration.ofMillis(1000);
    private static final int WAIT_MS = 10_000;
    private static final String STILL_OPEN = "not closed within " + WAIT_MS + " ms";

    private BootstrapListener listener;

    @BeforeEach
    void start() throws IOException
    {
        listener = new BootstrapListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TimeUnit.SECONDS.toNanos(3), DEADLINE, (hello, socket) -> new BootstrapListener.Outcome(
                CodedRefusalMessage.helloRefused(hello.requestId(), ReasonCode.SHUTTING_DOWN.code(), "test"), null),
            new NodeHealth());
        listener.start();
    }

    @AfterEach
    void stop()
    {
        listener.close();
        listener.closeConnections();
    }

    @Test
    void idleAndTricklingHellosAreClosedAtTheDeadlineWhileOthersAreAnswered() throws Exception
    {
        final byte[] hello = ControlCodec.toBytes(new HelloMessage(7, new byte[0],
            QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 3, 4)));
        final long opened = System.nanoTime();
        try (Socket idle = connect(); Socket trickling = connect())
        {
            final CompletableFuture<Long> idleClosed = SlowPeer.closedAt(idle, STILL_OPEN);
            final CompletableFuture<Long> tricklingClosed = SlowPeer.closedAt(trickling, STILL_OPEN);
            // one byte every 200 ms: each read waits far less than the deadline, the whole HELLO far more
            Thread.ofVirtual().start(() -> SlowPeer.trickle(trickling, hello, 200));

            try (Socket good = connect())
            {
                good.getOutputStream().write(hello);
                final ControlMessage reply = read(good);
                assertEquals(7, CodedRefusalMessage.expect(MessageType.HELLO_REFUSED, reply).requestId());
            }
            final long answered = System.nanoTime();

            for (final long end : new long[] {idleClosed.get(WAIT_MS, TimeUnit.MILLISECONDS),
                tricklingClosed.get(WAIT_MS, TimeUnit.MILLISECONDS)})
            {
                final long afterMs = TimeUnit.NANOSECONDS.toMillis(end - opened);
                assertTrue(answered < end, "a well-behaved HELLO was answered while the others were connected");
                assertTrue(afterMs >= DEADLINE.toMillis() - 100 && afterMs <= DEADLINE.toMillis() + 3_000,
                    "closed " + afterMs + " ms after connecting, deadline " + DEADLINE.toMillis() + " ms");
            }
        }
    }

    private Socket connect()
    {
        final Socket socket = new Socket();
        try
        {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.port()), WAIT_MS);
            socket.setSoTimeout(WAIT_MS);
            return socket;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static ControlMessage read(final Socket socket) throws IOException
    {
        return ControlCodec.read(socket.getInputStream());
    }
}
