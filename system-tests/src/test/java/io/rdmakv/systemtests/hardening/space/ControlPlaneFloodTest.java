package io.rdmakv.systemtests.hardening.space;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.verbs.WcStatus;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Raw peers flood the control plane (STATS as fast as they are answered; FREEs of 339 huge ranges, over
 * and over) while a third client measures its PUT latency, which needs ALLOCs and FREEs of its own. The
 * numbers are printed (p50/p99 before and during), never asserted: the assertions are that every PUT
 * succeeded and that the node did bounded work per request (one index census per period, not one walk
 * per STATS).
 */
class ControlPlaneFloodTest
{
    private static final int PUTS = 3_000;
    private static final int CHUNK = 256 * 1024;

    private KvServer server;
    private KvClient client;
    private RawSession statsPeer;
    private RawSession freePeer;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(statsPeer, freePeer, client, server);
    }

    @Test
    void putLatencyUnderAStatsFloodAndHugeFrees() throws Exception
    {
        server = LocalCluster.startNode(ServerConfig.local(256L << 20).withChunkSize(CHUNK));
        client = LocalCluster.client(server);
        final byte[] value = new byte[1024];
        for (int i = 0; i < 2_000; i++)
        {
            client.put(LocalCluster.bytes("seed-" + i), value); // an index worth walking
        }
        final Histogram before = measure(value);

        statsPeer = new RawSession(server.port());
        freePeer = new RawSession(server.port());
        assertEquals(WcStatus.SUCCESS, freePeer.send(new AllocMessage(1, 64)));
        final AllocOkMessage grant = assertInstanceOf(AllocOkMessage.class, freePeer.receive());
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong statsAnswered = new AtomicLong();
        final AtomicLong freesSent = new AtomicLong();
        final CompletableFuture<Void> statsFlood = flood(() ->
        {
            while (!stop.get())
            {
                statsPeer.send(new StatsMessage(7));
                final ControlMessage reply = statsPeer.receive();
                if (reply != null)
                {
                    statsAnswered.incrementAndGet();
                }
            }
        });
        final long[] offsets = new long[FreeMessage.MAX_ENTRIES];
        final int[] lengths = new int[FreeMessage.MAX_ENTRIES];
        final CompletableFuture<Void> freeFlood = flood(() ->
        {
            for (int round = 0; !stop.get(); round++)
            {
                for (int i = 0; i < offsets.length; i++)
                {
                    offsets[i] = i % 2 == 0 ? grant.chunkOffset() : (64L << 20) * (i % 5) + 64 * round;
                    lengths[i] = i % 2 == 0 ? (int)grant.chunkLength() : Integer.MAX_VALUE & -64;
                }
                freePeer.send(new FreeMessage(8, offsets, lengths));
                freesSent.incrementAndGet();
            }
        });
        final long census0 = server.counters().get(ServerCounter.INDEX_CENSUS_PASSES);
        final long stats0 = server.counters().get(ServerCounter.STATS_REQUESTS);
        final long t0 = System.nanoTime();
        final Histogram during = measure(value);
        final long elapsed = System.nanoTime() - t0;
        final long census = server.counters().get(ServerCounter.INDEX_CENSUS_PASSES) - census0;
        final long stats = server.counters().get(ServerCounter.STATS_REQUESTS) - stats0;
        stop.set(true);
        statsFlood.get(30, TimeUnit.SECONDS);
        freeFlood.get(30, TimeUnit.SECONDS);

        System.out.printf("control-plane flood: PUT p50/p99 before %d/%d us, during %d/%d us; %d STATS served " +
                "with %d index census passes in %d ms; %d huge FREE messages sent, %d FREEs served%n",
            before.getValueAtPercentile(50) / 1000, before.getValueAtPercentile(99) / 1000,
            during.getValueAtPercentile(50) / 1000, during.getValueAtPercentile(99) / 1000, stats, census,
            TimeUnit.NANOSECONDS.toMillis(elapsed), freesSent.get(), server.counters().get(ServerCounter.FREE_REQUESTS));
        assertEquals(PUTS, during.getTotalCount(), "every PUT succeeded during the flood");
        assertTrue(stats > 0 && statsAnswered.get() > 0, "the STATS flood was served");
        assertTrue(census <= TimeUnit.NANOSECONDS.toMillis(elapsed) / 250 + 2,
            census + " census passes for " + stats + " STATS in " + TimeUnit.NANOSECONDS.toMillis(elapsed) + " ms");
    }

    /** Runs {@code body} on a thread of its own (the common pool may have one thread on a small machine). */
    private static CompletableFuture<Void> flood(final Runnable body)
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() ->
        {
            try
            {
                body.run();
                done.complete(null);
            }
            catch (final Throwable t)
            {
                done.completeExceptionally(t);
            }
        });
        return done;
    }

    private Histogram measure(final byte[] value)
    {
        final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(30), 3);
        for (int i = 0; i < PUTS; i++)
        {
            final long t = System.nanoTime();
            client.put(LocalCluster.bytes("measured-" + (i % 1_000)), value);
            h.recordValue(System.nanoTime() - t);
        }
        return h;
    }
}
