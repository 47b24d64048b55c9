package io.rdmakv.server.bootstrap;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The epochs HEARTBEATs carry (protocol 8), at the node's end of the bootstrap connection: each session's client
 * reports the oldest epoch it may still run an operation under, recorded for that session alone, whatever it says
 * (an epoch above the node's included); the answer carries the node's applied epoch; a heartbeat without its epoch
 * (protocol 7) or with one over 2^63 - 1 ends that session only.
 */
class HeartbeatEpochsTest
{
    private final BlockingQueue<SessionEnd> ends = new ArrayBlockingQueue<>(8);
    private final Map<Integer, Long> reported = new ConcurrentHashMap<>();
    private final AtomicInteger sessions = new AtomicInteger();
    private volatile long applied = 9;
    private BootstrapListener listener;

    @BeforeEach
    void start() throws IOException
    {
        listener = new BootstrapListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            TimeUnit.SECONDS.toNanos(5), (hello, socket) ->
            {
                final int session = (int)hello.requestId();
                sessions.incrementAndGet();
                return new BootstrapListener.Outcome(new StatsMessage(hello.requestId()), ends::add, () -> true,
                    new HeartbeatEpochs()
                    {
                        @Override
                        public void reported(final long epoch)
                        {
                            reported.put(session, epoch);
                        }

                        @Override
                        public long applied()
                        {
                            return applied;
                        }
                    });
            }, new NodeHealth());
        listener.start();
    }

    @AfterEach
    void stop()
    {
        listener.close();
        listener.closeConnections();
    }

    private Socket session(final int id) throws IOException
    {
        final Socket socket = new Socket(InetAddress.getLoopbackAddress(), listener.port());
        socket.setSoTimeout(5_000);
        socket.setTcpNoDelay(true);
        socket.getOutputStream().write(ControlCodec.toBytes(new HelloMessage(id, new byte[0],
            QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 9))));
        new DataInputStream(socket.getInputStream()).readFully(new byte[16]);
        return socket;
    }

    private static HeartbeatMessage beat(final Socket socket, final long n, final long epoch) throws IOException
    {
        socket.getOutputStream().write(ControlCodec.toBytes(new HeartbeatMessage(n, epoch)));
        final byte[] answer = new byte[HeartbeatMessage.LENGTH];
        new DataInputStream(socket.getInputStream()).readFully(answer);
        return (HeartbeatMessage)ControlCodec.fromBytes(answer);
    }

    @Test
    void recordsEachSessionsReportAndAnswersWithTheAppliedEpoch() throws Exception
    {
        try (Socket one = session(1); Socket two = session(2))
        {
            assertEquals(new HeartbeatMessage(1, 9), beat(one, 1, 7), "the answer: the client's count, the node's epoch");
            assertEquals(7L, reported.get(1));
            Thread.sleep(10);
            applied = 12;
            assertEquals(new HeartbeatMessage(1, 12), beat(two, 1, Long.MAX_VALUE),
                "a report above the node's epoch is answered like any other");
            assertEquals(Long.MAX_VALUE, reported.get(2), "recorded for that session");
            assertEquals(7L, reported.get(1), "and for that session only");
        }
    }

    @Test
    void aHeartbeatWithoutItsEpochOrWithAnEpochOverTheLimitEndsItsOwnSessionOnly() throws Exception
    {
        try (Socket good = session(1); Socket old = session(2); Socket garbage = session(3))
        {
            beat(good, 1, 4);
            final byte[] bare = new byte[16];
            final MemorySegment header = MemorySegment.ofArray(bare);
            header.set(LittleEndian.U16, 0, (short)13);
            header.set(LittleEndian.U32, 4, 16);
            old.getOutputStream().write(bare);
            SessionEnd end = ends.poll(5, TimeUnit.SECONDS);
            assertNotNull(end);
            assertEquals(SessionEnd.Kind.BAD_FRAME, end.kind(), end.detail());
            assertTrue(end.detail().contains("HEARTBEAT message length 16, must be 24"), end.detail());

            final byte[] over = ControlCodec.toBytes(new HeartbeatMessage(1, 0));
            MemorySegment.ofArray(over).set(LittleEndian.U64, HeartbeatMessage.EPOCH_OFFSET, -5L);
            garbage.getOutputStream().write(over);
            end = ends.poll(5, TimeUnit.SECONDS);
            assertNotNull(end);
            assertEquals(SessionEnd.Kind.BAD_FRAME, end.kind(), end.detail());
            assertTrue(end.detail().contains("epoch"), end.detail());
            assertEquals(null, reported.get(2));
            assertEquals(null, reported.get(3), "neither was recorded");

            assertEquals(new HeartbeatMessage(2, 9), beat(good, 2, 5), "the other session goes on");
            assertEquals(5L, reported.get(1));
            assertEquals(null, ends.poll(100, TimeUnit.MILLISECONDS));
        }
    }
}
