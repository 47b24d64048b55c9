package io.rdmakv.systemtests.hardening.handshake;

import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.Bootstrap;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.VerbsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * HELLOs whose queue pair endpoint the node cannot or must not connect to: another host (open port or
 * not), a port on the HELLO's host where nothing listens, one that accepts and never answers. Each is
 * refused in time with a reason that says nothing about the named host or port (the same words whether it
 * is open or not), and leaves no session, queue pair or connection behind.
 */
class ForeignEndpointTest
{
    private static final long DEADLINE_MS = VerbsConfig.DEFAULT_HANDSHAKE_TIMEOUT_MS;

    private static KvServer server;

    @BeforeAll
    static void start()
    {
        assumeTrue("tcp".equals(LocalCluster.TRANSPORT), "tcp queue pair endpoints are what this test sends");
        server = LocalCluster.startNode();
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(server);
    }

    private record Refusal(String text, long ms)
    {
    }

    private static Refusal hello(final String host, final int port)
    {
        final long opened = server.counters().sessionsOpened();
        final QueuePairEndpoint endpoint = QueuePairEndpoint.tcp(ThreadLocalRandom.current().nextInt(), 1, host, port,
            ThreadLocalRandom.current().nextLong());
        final long start = System.nanoTime();
        try (Bootstrap b = new Bootstrap(server.port()))
        {
            final ControlMessage reply = b.write(ControlCodec.toBytes(new HelloMessage(9, new byte[0], endpoint)))
                .read();
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            final CodedRefusalMessage refused = CodedRefusalMessage.as(MessageType.HELLO_REFUSED, reply);
            assertNotNull(refused, "a HELLO naming " + host + ":" + port + " answered with " + reply);
            assertFalse(refused.text().contains(host) || refused.text().contains(Integer.toString(port)),
                "the reason names nothing of the endpoint: " + refused.text());
            assertTrue(b.closedByPeer(), "the node closes the connection after refusing");
            assertEquals(opened, server.counters().sessionsOpened(), "no session opened");
            return new Refusal(refused.text(), ms);
        }
    }

    private static void assertNoSessionLeft()
    {
        Await.until("no session left", Duration.ofSeconds(5), () -> server.sessionCount() == 0,
            () -> server.sessionCount() + " sessions");
    }

    @Test
    void anotherHostIsRefusedAtOnceWhetherItsPortIsOpenOrNot() throws IOException
    {
        final int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.ofLiteral("127.0.0.2")))
        {
            closedPort = s.getLocalPort();
        }
        try (ServerSocket open = new ServerSocket(0, 50, InetAddress.ofLiteral("127.0.0.2")))
        {
            final Refusal toOpen = hello("127.0.0.2", open.getLocalPort());
            final Refusal toClosed = hello("127.0.0.2", closedPort);
            assertEquals(toOpen.text(), toClosed.text(), "an open and a closed port read the same");
            assertTrue(toOpen.text().contains("host the HELLO came from"), toOpen.text());
            assertTrue(toOpen.ms() < 1_000 && toClosed.ms() < 1_000,
                "refused without trying: " + toOpen.ms() + " ms, " + toClosed.ms() + " ms");
        }
        assertEquals(hello("10.255.255.1", 7400).text(), hello("no-such-host.invalid", 7400).text());
        assertNoSessionLeft();
    }

    @Test
    void aPortThatIsClosedOrNeverAnswersReadsTheSameAndHoldsNothing() throws Exception
    {
        final int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            closedPort = s.getLocalPort();
        }
        try (SilentListener silent = new SilentListener())
        {
            final Refusal toClosed = hello("127.0.0.1", closedPort);
            final Refusal toSilent = hello("127.0.0.1", silent.port());
            assertEquals(toClosed.text(), toSilent.text(), "a closed port and a silent one read the same");
            assertTrue(toClosed.ms() < 1_000, "a closed port is refused at once: " + toClosed.ms() + " ms");
            assertTrue(toSilent.ms() >= DEADLINE_MS - 100 && toSilent.ms() <= DEADLINE_MS + 3_000,
                "a silent endpoint is given up at the handshake deadline: " + toSilent.ms() + " ms");
            assertEquals(1, silent.accepted());
            silent.assertAllClosedByTheNode();
        }
        assertNoSessionLeft();
    }

    @Test
    void manySilentEndpointsLeaveNoSessionHalfOpen() throws Exception
    {
        final int hellos = 30;
        try (SilentListener silent = new SilentListener())
        {
            final List<CompletableFuture<Refusal>> replies = new ArrayList<>();
            for (int i = 0; i < hellos; i++)
            {
                replies.add(CompletableFuture.supplyAsync(() -> hello("127.0.0.1", silent.port()),
                    r -> Thread.ofVirtual().start(r)));
            }
            for (final CompletableFuture<Refusal> reply : replies)
            {
                final Refusal refusal = reply.get(DEADLINE_MS + 10_000, TimeUnit.MILLISECONDS);
                assertTrue(refusal.ms() <= DEADLINE_MS + 5_000, "refused after " + refusal.ms() + " ms");
            }
            assertEquals(hellos, silent.accepted());
            silent.assertAllClosedByTheNode();
        }
        assertNoSessionLeft();
    }

    /** Accepts every connection and never sends a byte; remembers them to see the node close each. */
    private static final class SilentListener implements AutoCloseable
    {
        private final ServerSocket listener;
        private final List<Socket> accepted = new ArrayList<>();

        SilentListener() throws IOException
        {
            listener = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(() ->
            {
                try
                {
                    while (true)
                    {
                        final Socket s = listener.accept();
                        s.setSoTimeout(10_000);
                        synchronized (accepted)
                        {
                            accepted.add(s);
                        }
                    }
                }
                catch (final IOException e)
                {
                    // closed
                }
            });
        }

        int port()
        {
            return listener.getLocalPort();
        }

        int accepted()
        {
            synchronized (accepted)
            {
                return accepted.size();
            }
        }

        /** Every connection the node opened here ends (the node read nothing back and gave up on it). */
        void assertAllClosedByTheNode()
        {
            final List<Socket> all;
            synchronized (accepted)
            {
                all = List.copyOf(accepted);
            }
            for (final Socket s : all)
            {
                try
                {
                    while (s.getInputStream().read() >= 0)
                    {
                        // the node's hello: skip it
                    }
                }
                catch (final IOException e)
                {
                    if (!"Connection reset".equals(e.getMessage()))
                    {
                        throw new UncheckedIOException("the node left a connection open", e);
                    }
                }
            }
        }

        @Override
        public void close()
        {
            LocalCluster.closeAll(listener);
            synchronized (accepted)
            {
                accepted.forEach(LocalCluster::closeAll);
            }
        }
    }
}
