package io.rdmakv.systemtests.hardening.space;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.verbs.WcStatus;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Session churn against a 1 GiB node (an index of 128 MiB): one authenticated peer opens a session, says BYE and
 * closes, as fast as it can, while another session's ALLOCs are timed. Each departure's reclaim walks the index; the
 * walks must neither starve the control thread (another session's ALLOC waited behind them past its 8 s timeout)
 * nor pile up (departures that arrive while a walk runs join it: {@code DepartureWalkTest}). Asserted: every ALLOC
 * answered, its p99 during the churn within twice its p99 before plus 20 ms (what the other session notices), and
 * every churned session reclaimed soon after, with at most one walk of the index each. The figures are printed,
 * with another client's PUT latency (an ALLOC every 64 PUTs) before and during the churn.
 */
class DepartureChurnTest
{
    private static final int ALLOCS = 300;

    private KvServer server;
    private RawSession timed;
    private KvClient client;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(timed, client, server);
    }

    @Test
    void sessionChurnDelaysNoOtherSessionsAllocAndSharesTheIndexWalks() throws Exception
    {
        server = LocalCluster.startNode(ServerConfig.local(1L << 30).withChunkSize(256 << 10));
        timed = new RawSession(server.port());
        client = LocalCluster.client(server);
        allocs(); // warm-up
        puts();
        final Histogram before = allocs();
        final Histogram putsBefore = puts();

        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong churned = new AtomicLong();
        final CompletableFuture<Void> churn = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("churn").start(() ->
        {
            try
            {
                while (!stop.get())
                {
                    try (RawSession s = new RawSession(server.port()))
                    {
                        s.send(new ByeMessage(1));
                    }
                    churned.incrementAndGet();
                }
                churn.complete(null);
            }
            catch (final Throwable t)
            {
                churn.completeExceptionally(t);
            }
        });
        final long walked0 = server.counters().get(ServerCounter.DEPARTURE_GROUPS_WALKED);
        final long closed0 = server.counters().get(ServerCounter.SESSIONS_CLOSED);
        final long t0 = System.nanoTime();
        final Histogram during;
        final Histogram putsDuring;
        try
        {
            Thread.sleep(1000); // the churn under way, departures piling up if they are not merged
            during = allocs();
            putsDuring = puts();
        }
        finally
        {
            stop.set(true);
        }
        churn.get(30, TimeUnit.SECONDS);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        Await.until("every churned session reclaimed", Duration.ofSeconds(30),
            () -> server.counters().get(ServerCounter.SESSIONS_CLOSED) - closed0 >= churned.get());
        final long closed = server.counters().get(ServerCounter.SESSIONS_CLOSED) - closed0;
        final double walks = (double)(server.counters().get(ServerCounter.DEPARTURE_GROUPS_WALKED) - walked0) /
            server.geometry().groupCount();
        System.out.printf("departure churn: %d sessions opened and closed in %d ms (%.0f/s), %d reclaimed, the index " +
                "walked %.1f times for them; ALLOC p50/p99/max before %d/%d/%d us, during %d/%d/%d us; another " +
                "client's PUT (an ALLOC every 64) p50/p99 before %d/%d us, during %d/%d us%n",
            churned.get(), elapsedMs, churned.get() * 1000.0 / elapsedMs, closed, walks,
            before.getValueAtPercentile(50) / 1000, before.getValueAtPercentile(99) / 1000, before.getMaxValue() / 1000,
            during.getValueAtPercentile(50) / 1000, during.getValueAtPercentile(99) / 1000, during.getMaxValue() / 1000,
            putsBefore.getValueAtPercentile(50) / 1000, putsBefore.getValueAtPercentile(99) / 1000,
            putsDuring.getValueAtPercentile(50) / 1000, putsDuring.getValueAtPercentile(99) / 1000);
        assertEquals(ALLOCS, during.getTotalCount(), "every ALLOC answered during the churn");
        assertTrue(churned.get() >= 20, "the churn ran: " + churned.get() + " sessions");
        final long bound = 2 * before.getValueAtPercentile(99) + TimeUnit.MILLISECONDS.toNanos(20);
        assertTrue(during.getValueAtPercentile(99) <= bound, "ALLOC p99 during the churn " +
            during.getValueAtPercentile(99) / 1000 + " us, over twice the p99 before plus 20 ms: " + bound / 1000 + " us");
        assertTrue(walks <= closed + 1, closed + " sessions reclaimed with " + walks + " walks of the index");
    }

    /** {@link #ALLOCS} PUTs of 4000 bytes by another client: about one in 64 waits for an ALLOC (256 KiB chunks). */
    private Histogram puts()
    {
        final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        final byte[] value = new byte[4000];
        for (int i = 0; i < 4 * ALLOCS; i++)
        {
            final long t = System.nanoTime();
            client.put(LocalCluster.bytes("churn-put-" + (i % 500)), value);
            h.recordValue(System.nanoTime() - t);
        }
        return h;
    }

    /**
     * {@link #ALLOCS} ALLOCs of the timed session, each answered before the next (granted, or refused once the
     * session's quota is reached: either is the control thread's answer).
     */
    private Histogram allocs()
    {
        final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (int i = 0; i < ALLOCS; i++)
        {
            final long t = System.nanoTime();
            assertEquals(WcStatus.SUCCESS, timed.send(new AllocMessage(i + 1, 64)));
            final ControlMessage reply = timed.receive(Duration.ofSeconds(30));
            h.recordValue(System.nanoTime() - t);
            assertNotNull(reply, "ALLOC " + i + " answered within 30 s");
            assertTrue(reply instanceof AllocOkMessage || CodedRefusalMessage.as(MessageType.ALLOC_FAILED, reply) != null, reply.toString());
        }
        return h;
    }
}
