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
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.WorkCompletions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The responder engine: many queue pairs cost sockets and buffers, not threads; a peer that stops reading
 * its responses does not stall the other peers of the same engine thread; the engine's settings are checked.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
final class TcpResponderEngineTest
{
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int BIG = 1 << 20;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final Arena arena = Arena.ofShared();
    private final WorkCompletions one = WorkCompletions.allocate(1);

    @AfterEach
    void close() throws Exception
    {
        while (!resources.isEmpty())
        {
            resources.pop().close();
        }
        one.close();
        arena.close();
    }

    private <T extends AutoCloseable> T track(final T resource)
    {
        resources.push(resource);
        return resource;
    }

    private record Side(Context context, ProtectionDomain pd, CompletionQueue cq)
    {
    }

    private Side side()
    {
        final Context context = track(Providers.open("tcp", VerbsConfig.DEFAULT));
        final ProtectionDomain pd = track(context.allocateProtectionDomain());
        return new Side(context, pd, track(context.createCompletionQueue(4096)));
    }

    /** A connected pair: {@code [requester, responder]}. */
    private QueuePair[] pair(final Side requester, final CompletionQueue requesterCq, final Side responder)
    {
        final QueuePair a = track(requester.pd().createQueuePair(QueuePairConfig.of(requesterCq, 64, 16)));
        final QueuePair b = track(responder.pd().createQueuePair(QueuePairConfig.of(responder.cq(), 64, 16)));
        final ConnectOptions options = ConnectOptions.DEFAULT;
        a.modifyToInit(options);
        b.modifyToInit(options);
        b.modifyToRtr(a.localEndpoint(), options);
        a.modifyToRtr(b.localEndpoint(), options);
        b.modifyToRts(options);
        a.modifyToRts(options);
        return new QueuePair[] {a, b};
    }

    private static int platformThreads()
    {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    @Test
    void twoHundredQueuePairsAreServedWithoutAThreadEach()
    {
        final Side server = side();
        final Side client = side();
        final MemoryRegion remote = track(server.pd().registerMemory(arena.allocate(4096, 64),
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ));
        final MemoryRegion local = track(client.pd().registerMemory(arena.allocate(4096, 64), AccessFlags.LOCAL_WRITE));
        remote.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, 0x5eedL);
        final List<QueuePair> requesters = new ArrayList<>();
        requesters.add(pair(client, client.cq(), server)[0]);
        final int before = platformThreads();
        for (int i = 1; i < 100; i++)
        {
            requesters.add(pair(client, client.cq(), server)[0]);
        }
        final int after = platformThreads();
        assertTrue(after - before < 8, "200 queue pairs (100 connected pairs, 400 connections) took " +
            (after - before) + " more platform threads (" + before + " -> " + after + ")");

        final SendWorkRequests wrs = track(SendWorkRequests.allocate(1, 1));
        for (int i = 0; i < requesters.size(); i++)
        {
            local.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 0L);
            wrs.at(0).rdmaRead(local.address(), 8, local.lkey(), remote.address() + 8, remote.rkey())
                .wrId(i).sendFlags(SendFlags.SIGNALED);
            assertEquals(0, requesters.get(i).postSend(wrs.at(0)));
            assertEquals(1, client.cq().await(one, WAIT_NANOS), "queue pair " + i + "'s READ completes");
            assertEquals(0, one.at(0).status(), "queue pair " + i + "'s READ status");
            assertEquals(0x5eedL, local.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
        }
    }

    /**
     * Peer A posts 48 one-megabyte READs and never polls, so the responses fill the sockets and the
     * responder's output; the same engine thread must keep serving peer B's READs. Then A polls, and its
     * READs complete: the backpressure lifts.
     */
    @Test
    void aPeerThatStopsReadingDoesNotStallAnother()
    {
        final Side server = side();
        final Side client = side();
        final CompletionQueue stalledCq = track(client.context().createCompletionQueue(256));
        final MemoryRegion remote = track(server.pd().registerMemory(arena.allocate(BIG, 64),
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ));
        final MemoryRegion local = track(client.pd().registerMemory(arena.allocate(BIG, 64), AccessFlags.LOCAL_WRITE));
        final QueuePair stalled = pair(client, stalledCq, server)[0];
        final QueuePair healthy = pair(client, client.cq(), server)[0];

        final int reads = 48;
        final SendWorkRequests chain = track(SendWorkRequests.allocate(reads, 1));
        for (int i = 0; i < reads; i++)
        {
            chain.at(i).rdmaRead(local.address(), BIG, local.lkey(), remote.address(), remote.rkey())
                .wrId(1000 + i).sendFlags(i == reads - 1 ? SendFlags.SIGNALED : 0)
                .next(i == reads - 1 ? null : chain.at(i + 1));
        }
        assertEquals(0, stalled.postSend(chain.at(0)));

        final SendWorkRequests wrs = track(SendWorkRequests.allocate(1, 1));
        final long start = System.nanoTime();
        for (int i = 0; i < 200; i++)
        {
            wrs.at(0).rdmaRead(local.address(), 64, local.lkey(), remote.address(), remote.rkey())
                .wrId(i).sendFlags(SendFlags.SIGNALED);
            assertEquals(0, healthy.postSend(wrs.at(0)));
            assertEquals(1, client.cq().await(one, WAIT_NANOS), "the healthy peer's READ " + i +
                " completes while the other peer does not read");
            assertEquals(0, one.at(0).status());
        }
        final long took = System.nanoTime() - start;
        assertTrue(took < WAIT_NANOS, "the healthy peer's 200 READs took " + TimeUnit.NANOSECONDS.toMillis(took) +
            " ms");

        assertEquals(1, stalledCq.await(one, 3 * WAIT_NANOS), "the stalled peer's READs complete once it polls");
        assertEquals(1000 + reads - 1, one.at(0).wrId());
        assertEquals(0, one.at(0).status());
    }

    @Test
    void badEngineSettingsFailTheDeviceOpenNamingTheProperty()
    {
        final String saved = System.getProperty(TcpResponderEngine.THREADS_PROPERTY);
        try
        {
            System.setProperty(TcpResponderEngine.THREADS_PROPERTY, "0");
            final VerbsException zero = assertThrows(VerbsException.class,
                () -> Providers.open("tcp", VerbsConfig.DEFAULT).close());
            assertTrue(zero.getMessage().contains(TcpResponderEngine.THREADS_PROPERTY), zero.getMessage());
            System.setProperty(TcpResponderEngine.THREADS_PROPERTY, "two");
            final VerbsException word = assertThrows(VerbsException.class,
                () -> Providers.open("tcp", VerbsConfig.DEFAULT).close());
            assertTrue(word.getMessage().contains("'two'"), word.getMessage());
        }
        finally
        {
            if (saved == null)
            {
                System.clearProperty(TcpResponderEngine.THREADS_PROPERTY);
            }
            else
            {
                System.setProperty(TcpResponderEngine.THREADS_PROPERTY, saved);
            }
        }
    }
}
