package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code tcp} device's connection set-up against peers that are not well-behaved requesters: idle and
 * trickling connections delay nobody and are closed when their handshake deadline passes; a connection
 * to a live queue pair without its secret, or from another queue pair than the one it expects, is refused
 * and counted, and the real peer still connects afterwards; numbers and keys give nothing away.
 */
class TcpHandshakeTest
{
    private static final Duration DEADLINE = Duration.ofMillis(1500);
    private static final long WAIT_MS = 10_000;

    private final Arena arena = Arena.ofShared();
    private final SendWorkRequests wrs = SendWorkRequests.allocate(1, 1);
    private final WorkCompletions wcs = WorkCompletions.allocate(1);
    private Node server;
    private Node client;

    /** One side: a device, and a queue pair with 4 KiB of remotely accessible memory. */
    private record Node(Context context, ProtectionDomain pd, CompletionQueue cq, MemoryRegion mr, QueuePair qp)
        implements AutoCloseable
    {
        static Node open(final VerbsConfig config, final Arena arena)
        {
            final Context context = Providers.open("tcp", config);
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(64);
            final MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 64),
                AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
            final QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq, 16, 16));
            qp.modifyToInit(ConnectOptions.DEFAULT);
            return new Node(context, pd, cq, mr, qp);
        }

        TcpContext device()
        {
            return (TcpContext)context;
        }

        void connectTo(final Node peer)
        {
            qp.modifyToRtr(QueuePairEndpoint.fromBytes(peer.qp.localEndpoint().toBytes()), ConnectOptions.DEFAULT);
            qp.modifyToRts(ConnectOptions.DEFAULT);
        }

        @Override
        public void close()
        {
            CloseHelper.closeAll(qp, mr, cq, pd, context);
        }
    }

    @BeforeEach
    void open()
    {
        server = Node.open(VerbsConfig.DEFAULT.withHandshakeTimeout(DEADLINE), arena);
        client = Node.open(VerbsConfig.DEFAULT, arena);
    }

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(client, server, wrs, wcs);
        arena.close();
    }

    @Test
    void idleAndTricklingPeersDelayNobodyAndAreClosedAtTheirDeadline() throws Exception
    {
        final long opened = System.nanoTime();
        try (Socket idle = connect(server.device().port()); Socket trickling = connect(server.device().port()))
        {
            final CompletableFuture<Long> idleClosed = closedAt(idle);
            final CompletableFuture<Long> tricklingClosed = closedAt(trickling);
            final Thread trickler = Thread.ofVirtual().start(() -> trickle(trickling,
                hello(server.qp.qpNum(), client.qp.qpNum(), server.qp.localEndpoint().secret()), 200));

            final long worked = assertTimeoutPreemptively(Duration.ofMillis(WAIT_MS), () ->
            {
                server.connectTo(client);
                client.connectTo(server);
                writeAndReadBack(client, server, 0x1122_3344_5566_7788L);
                writeAndReadBack(server, client, 0x0102_0304_0506_0708L);
                return System.nanoTime();
            }, "a queue pair pair connects and works while an idle and a trickling peer hold the device's port");

            final long idleEnd = idleClosed.get(WAIT_MS, TimeUnit.MILLISECONDS);
            final long tricklingEnd = tricklingClosed.get(WAIT_MS, TimeUnit.MILLISECONDS);
            trickler.join(WAIT_MS);
            assertTrue(worked < idleEnd && worked < tricklingEnd,
                "the pair worked while both bad peers were still connected");
            for (final long end : new long[] {idleEnd, tricklingEnd})
            {
                final long afterMs = TimeUnit.NANOSECONDS.toMillis(end - opened);
                assertTrue(afterMs >= DEADLINE.toMillis() - 100 && afterMs <= DEADLINE.toMillis() + 3_000,
                    "closed " + afterMs + " ms after connecting, deadline " + DEADLINE.toMillis() + " ms");
            }
            assertEquals(2, server.device().timedOutHandshakes(), "both counted as past their deadline");
            assertEquals(2, server.device().rejectedConnections());
        }
    }

    @Test
    void aConnectWithoutTheSecretIsRefusedCountedAndTheRealPeerStillConnects()
    {
        server.connectTo(client);
        final QueuePairEndpoint target = server.qp.localEndpoint();
        final int port = server.device().port();
        assertEquals(0, server.device().rejectedConnections());

        assertEquals(TcpWire.HANDSHAKE_REFUSED, forge(port, hello(target.qpNum(), client.qp.qpNum(),
            target.secret() ^ 1)), "a wrong secret, right queue pair numbers");
        assertEquals(TcpWire.HANDSHAKE_REFUSED, forge(port, hello(target.qpNum(), client.qp.qpNum(), 0)),
            "no secret");
        assertEquals(TcpWire.HANDSHAKE_REFUSED, forge(port, hello(target.qpNum() + 1, client.qp.qpNum(),
            target.secret())), "the secret of another queue pair");
        final byte[] garbage = hello(target.qpNum(), client.qp.qpNum(), target.secret());
        garbage[0] ^= 1;
        assertEquals(-1, forge(port, garbage), "not a requester's hello: closed without an answer");
        assertEquals(4, server.device().rejectedConnections(), "every refused connection counted");

        client.connectTo(server);
        writeAndReadBack(client, server, 0x0bad_cafe_0bad_cafeL);
        writeAndReadBack(server, client, 0x5eed_5eed_5eed_5eedL);
    }

    @Test
    void aConnectFromAnotherQueuePairIsRefusedEvenWithTheSecret()
    {
        // The client's queue pair is in INIT: a connection with its secret is held, unserved, until RTR.
        final QueuePairEndpoint clientEnd = client.qp.localEndpoint();
        try (Socket held = connect(client.device().port()))
        {
            write(held, hello(clientEnd.qpNum(), server.qp.qpNum() ^ 0x10, clientEnd.secret()));
            assertEquals(TcpWire.HANDSHAKE_OK, readStatus(held), "held in INIT");
            final CompletableFuture<Long> dropped = closedAt(held);

            client.connectTo(server); // RTR names the server's queue pair: the held connection came from another
            assertTrue(dropped.join() > 0, "dropped at RTR");
            assertEquals(1, client.device().rejectedConnections());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }

        // The client's queue pair is in RTS now, expecting the server's: the secret alone is not enough.
        assertEquals(TcpWire.HANDSHAKE_REFUSED, forge(client.device().port(), hello(clientEnd.qpNum(),
            server.qp.qpNum() + 1, clientEnd.secret())));
        assertEquals(2, client.device().rejectedConnections());

        server.connectTo(client);
        writeAndReadBack(client, server, 0x7777_0000_7777_0000L);
        writeAndReadBack(server, client, 0x0000_8888_0000_8888L);
    }

    @Test
    void queuePairNumbersKeysAndSecretsAreRandom()
    {
        final List<Integer> qpNums = new ArrayList<>();
        final Set<Long> secrets = new HashSet<>();
        for (int i = 0; i < 1000; i++)
        {
            try (QueuePair qp = server.pd.createQueuePair(QueuePairConfig.of(server.cq, 1, 1)))
            {
                qpNums.add(qp.qpNum());
                secrets.add(qp.localEndpoint().secret());
            }
        }
        final List<Integer> keys = new ArrayList<>();
        final List<MemoryRegion> regions = new ArrayList<>();
        try
        {
            for (int i = 0; i < 1000; i++)
            {
                final MemoryRegion mr = server.pd.registerMemory(server.mr.segment().asSlice(i % 64 * 64, 64),
                    AccessFlags.REMOTE_READ);
                regions.add(mr);
                keys.add(mr.rkey());
                assertEquals(mr.rkey(), mr.lkey());
            }
        }
        finally
        {
            regions.forEach(MemoryRegion::close);
        }
        assertSpread("queue pair numbers", qpNums);
        assertSpread("memory region keys", keys);
        assertEquals(1000, secrets.size(), "secrets are distinct");
        assertTrue(!secrets.contains(0L), "no queue pair has secret 0");
    }

    /** No two equal, no two consecutive, and every top four bits value taken: 32 random bits, not a counter. */
    private static void assertSpread(final String what, final List<Integer> values)
    {
        final Set<Integer> seen = new HashSet<>(values);
        assertEquals(values.size(), seen.size(), what + " are distinct");
        for (final int v : values)
        {
            assertTrue(!seen.contains(v + 1), what + ": " + v + " and " + (v + 1) + " are consecutive");
        }
        final Set<Integer> topBits = new HashSet<>();
        values.forEach(v -> topBits.add(v >>> 28));
        assertEquals(16, topBits.size(), what + " spread over the 32-bit range: top four bits seen " + topBits);
    }

    /** RDMA WRITE of {@code value} from {@code from} into {@code to}'s memory, then READ back. */
    private void writeAndReadBack(final Node from, final Node to, final long value)
    {
        from.mr.segment().set(ValueLayout.JAVA_LONG, 0, value);
        wrs.at(0).wrId(1).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(from.mr.address(), 8, from.mr.lkey(), to.mr.address() + 64, to.mr.rkey()).next(null);
        assertEquals(0, from.qp.postSend(wrs.at(0)));
        awaitSuccess(from.cq);
        assertEquals(value, to.mr.segment().get(ValueLayout.JAVA_LONG, 64));
        wrs.at(0).wrId(2).rdmaRead(from.mr.address() + 8, 8, from.mr.lkey(), to.mr.address() + 64, to.mr.rkey());
        assertEquals(0, from.qp.postSend(wrs.at(0)));
        awaitSuccess(from.cq);
        assertEquals(value, from.mr.segment().get(ValueLayout.JAVA_LONG, 8));
    }

    private void awaitSuccess(final CompletionQueue cq)
    {
        assertEquals(1, cq.await(wcs, TimeUnit.MILLISECONDS.toNanos(WAIT_MS)), "one completion");
        assertEquals(WcStatus.SUCCESS, wcs.at(0).statusEnum());
    }

    /** A requester's hello as {@link TcpWire} lays it out. */
    private static byte[] hello(final int target, final int source, final long secret)
    {
        return ByteBuffer.allocate(TcpWire.HANDSHAKE_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(0, TcpWire.HANDSHAKE_MAGIC).putInt(TcpWire.HANDSHAKE_TARGET_OFFSET, target)
            .putInt(TcpWire.HANDSHAKE_SOURCE_OFFSET, source).put(TcpWire.HANDSHAKE_RNR_RETRY_OFFSET, (byte)7)
            .putLong(TcpWire.HANDSHAKE_SECRET_OFFSET, secret).array();
    }

    /**
     * Sends {@code hello} on a fresh connection; returns the device's status, after checking that the device
     * then closes the connection, or -1 when it closes without answering.
     */
    private static int forge(final int port, final byte[] hello)
    {
        try (Socket socket = connect(port))
        {
            write(socket, hello);
            final int status = readStatus(socket);
            assertTrue(status == -1 || socket.getInputStream().read() < 0, "closed after refusing");
            return status;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static Socket connect(final int port)
    {
        final Socket socket = new Socket();
        try
        {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int)WAIT_MS);
            socket.setSoTimeout((int)WAIT_MS);
            return socket;
        }
        catch (final IOException e)
        {
            CloseHelper.quietClose(socket);
            throw new UncheckedIOException(e);
        }
    }

    private static void write(final Socket socket, final byte[] bytes) throws IOException
    {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** The 4-byte status, or -1 when the connection ends first. */
    private static int readStatus(final Socket socket) throws IOException
    {
        final byte[] reply = new byte[TcpWire.HANDSHAKE_REPLY_LENGTH];
        final InputStream in = socket.getInputStream();
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

    /** Writes {@code bytes} one at a time, {@code pauseMs} apart, until done or the connection breaks. */
    private static void trickle(final Socket socket, final byte[] bytes, final long pauseMs)
    {
        try
        {
            for (final byte b : bytes)
            {
                socket.getOutputStream().write(b);
                socket.getOutputStream().flush();
                Thread.sleep(pauseMs);
            }
        }
        catch (final IOException | InterruptedException e)
        {
            // the device closed the connection: what the test waits for
        }
    }

    /** Completes with the {@link System#nanoTime()} at which the peer closed {@code socket} (EOF or reset). */
    private static CompletableFuture<Long> closedAt(final Socket socket)
    {
        final CompletableFuture<Long> closed = new CompletableFuture<>();
        Thread.ofVirtual().start(() ->
        {
            try
            {
                while (socket.getInputStream().read() >= 0)
                {
                    // a device answers nothing to a peer that never completed its hello: wait for the end
                }
                closed.complete(System.nanoTime());
            }
            catch (final SocketTimeoutException e)
            {
                closed.completeExceptionally(new AssertionError("not closed within " + WAIT_MS + " ms"));
            }
            catch (final IOException e)
            {
                closed.complete(System.nanoTime());
            }
        });
        return closed;
    }
}
