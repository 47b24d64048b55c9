package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.ReceiveWorkRequest;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Two devices of the provider under test in one JVM, a "server" and a "client" side, each with a
 * protection domain and a completion queue; memory, queue pairs and work-request arrays made through
 * it are closed with it, children before parents (last made, first closed), and the native memory is
 * freed after everything that could touch it. The client side is the requester in every test.
 *
 * <p>The completion helpers ({@link #await}, {@link #awaitOne}, {@link #assertNoCompletion}) belong to
 * the test's own thread; worker threads use their own {@link CompletionWaiter}.
 */
final class VerbsFixture implements AutoCloseable
{
    /** The bound of every completion wait. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final int CQ_CAPACITY = 4096;
    /** Send and receive queue depth of {@link #connectedPair()}. */
    static final int QUEUE_DEPTH = 256;
    /** What a region a peer may read, write and update atomically is registered with. */
    static final int REMOTE_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE;

    /** One device and what every test needs on it. */
    record Side(String name, Context context, ProtectionDomain pd, CompletionQueue cq)
    {
    }

    /** A connected RC pair: the client's queue pair is the requester, the server's the responder. */
    record Link(QueuePair client, QueuePair server, QueuePairConnector.Connected connection)
    {
    }

    private final String provider;
    private final Deque<AutoCloseable> resources;
    private final Arena arena;
    private final CompletionWaiter waiter;
    private final Side server;
    private final Side client;
    /** State checks the device could not answer ({@link KnownDeviations#SIW_QUERY_QP_NO_STATE}), in order. */
    private final List<String> uncheckedStates = new ArrayList<>();
    /** Requests siw never completed ({@link KnownDeviations#SIW_POSTED_IN_ERR_NOT_COMPLETED}). */
    private final List<String> lostRequests = new ArrayList<>();

    private VerbsFixture(
        final String provider, final Deque<AutoCloseable> resources, final Arena arena, final Side server,
        final Side client)
    {
        this.provider = provider;
        this.resources = resources;
        this.arena = arena;
        this.server = server;
        this.client = client;
        this.waiter = track(new CompletionWaiter());
    }

    /** Opens both sides, or skips/fails the calling test as {@link ConformanceProviders#requireUsable} says. */
    static VerbsFixture open(final String provider)
    {
        ConformanceProviders.requireUsable(provider);
        final Deque<AutoCloseable> resources = new ArrayDeque<>();
        final Arena arena = Arena.ofShared();
        try
        {
            final Side server = openSide(provider, "server", resources);
            final Side client = openSide(provider, "client", resources);
            return new VerbsFixture(provider, resources, arena, server, client);
        }
        catch (final RuntimeException | Error e)
        {
            closeAll(resources, arena, e);
            throw e;
        }
    }

    private static Side openSide(final String provider, final String name, final Deque<AutoCloseable> resources)
    {
        final Context context = ConformanceProviders.open(provider);
        resources.push(context);
        final ProtectionDomain pd = context.allocateProtectionDomain();
        resources.push(pd);
        final CompletionQueue cq = context.createCompletionQueue(CQ_CAPACITY);
        resources.push(cq);
        return new Side(name, context, pd, cq);
    }

    String provider()
    {
        return provider;
    }

    Side server()
    {
        return server;
    }

    Side client()
    {
        return client;
    }

    /** Closes {@code resource} with the fixture (before everything tracked earlier). */
    <T extends AutoCloseable> T track(final T resource)
    {
        resources.push(resource);
        return resource;
    }

    /** A third device of the provider under test. */
    Context openContext()
    {
        return track(ConformanceProviders.open(provider));
    }

    /** Zeroed native memory, 64-byte aligned, freed when the fixture closes. Not registered. */
    MemorySegment allocate(final long size)
    {
        return arena.allocate(size, 64).fill((byte)0);
    }

    /** Registers {@code size} fresh zeroed bytes in the side's protection domain. */
    MemoryRegion register(final Side side, final long size, final int access)
    {
        return register(side.pd(), allocate(size), access);
    }

    MemoryRegion register(final ProtectionDomain pd, final MemorySegment segment, final int access)
    {
        return track(pd.registerMemory(segment, access));
    }

    CompletionQueue createCompletionQueue(final Side side, final int capacity)
    {
        return track(side.context().createCompletionQueue(capacity));
    }

    QueuePair createQueuePair(final Side side, final QueuePairConfig config)
    {
        final QueuePair qp = track(side.pd().createQueuePair(config));
        assertEquals(QpState.RESET, qp.state(), "a new queue pair starts in RESET");
        return qp;
    }

    SendWorkRequests sendRequests(final int count)
    {
        return track(SendWorkRequests.allocate(count, 1));
    }

    ReceiveWorkRequests receiveRequests(final int count)
    {
        return track(ReceiveWorkRequests.allocate(count, 1));
    }

    Link connectedPair()
    {
        return connectedPair(ConnectOptions.DEFAULT);
    }

    Link connectedPair(final ConnectOptions options)
    {
        return connectedPair(
            QueuePairConfig.of(client.cq(), QUEUE_DEPTH, QUEUE_DEPTH), options,
            QueuePairConfig.of(server.cq(), QUEUE_DEPTH, QUEUE_DEPTH), options);
    }

    /**
     * A new pair connected as {@link QueuePairConnector#connect} does (by exchange, or through rdma_cm as
     * {@code -Drdmakv.conformance.cm} says); an rdma_cm connection is closed with the fixture, before the pair.
     */
    Link connectedPair(
        final QueuePairConfig clientConfig, final ConnectOptions clientOptions,
        final QueuePairConfig serverConfig, final ConnectOptions serverOptions)
    {
        final QueuePair clientQp = createQueuePair(client, clientConfig);
        final QueuePair serverQp = createQueuePair(server, serverConfig);
        final QueuePairConnector.Connected connection =
            track(QueuePairConnector.connect(clientQp, clientOptions, serverQp, serverOptions));
        return new Link(clientQp, serverQp, connection);
    }

    /**
     * Fails unless {@code qp} is in {@code expected}, as {@link QueuePair#state()} ({@code ibv_query_qp}) reports.
     * On siw, whose {@code ibv_query_qp} reports RESET in every state ({@link KnownDeviations#SIW_QUERY_QP_NO_STATE}),
     * a RESET where another state is expected is recorded instead: the test goes on with its other checks, and
     * {@link #close()} then reports it aborted with the deviation and the checks it could not make.
     */
    void assertState(final QueuePair qp, final QpState expected, final String what)
    {
        final QpState reported = qp.state();
        if (reported != expected && reported == QpState.RESET && KnownDeviations.softIwarp(server.context()))
        {
            uncheckedStates.add(what + ": " + expected + " expected, RESET reported");
            return;
        }
        assertEquals(expected, reported, what);
    }

    /**
     * The responder of {@code link} goes away: its rdma_cm connection is closed (disconnected) first, as rdma_cm
     * demands and a process ending does, then its queue pair.
     */
    void closeResponder(final Link link)
    {
        link.connection().closeResponder();
        link.server().close();
    }

    /**
     * The next {@code n} completions of {@code cq}, as {@link #await}; on siw, which never completes a request
     * posted once its queue pair is in ERR ({@link KnownDeviations#SIW_POSTED_IN_ERR_NOT_COMPLETED}), those that
     * come, each within 3 s of the one before: fewer are recorded, and {@link #close()} then reports the test
     * aborted with the deviation once its other checks passed.
     */
    List<Completion> awaitSomePostedInErr(final CompletionQueue cq, final int n, final String what)
    {
        if (!KnownDeviations.softIwarp(server.context()))
        {
            return await(cq, n);
        }
        final List<Completion> done = new ArrayList<>();
        while (done.size() < n)
        {
            final Completion c = awaitOneWithin(cq, TimeUnit.SECONDS.toNanos(3));
            if (c == null)
            {
                lostRequests.add(what + ": " + done.size() + " of " + n + " completed, " + done);
                break;
            }
            done.add(c);
        }
        return done;
    }

    /** Posts, failing the test unless {@link QueuePair#postSend} returns 0. */
    static void postSend(final QueuePair qp, final SendWorkRequest wr)
    {
        final int rc = qp.postSend(wr);
        if (rc != 0)
        {
            fail("postSend on queue pair " + qp.qpNum() + " returned " + Errno.name(rc));
        }
    }

    /** Posts, failing the test unless {@link QueuePair#postReceive} returns 0. */
    static void postReceive(final QueuePair qp, final ReceiveWorkRequest wr)
    {
        final int rc = qp.postReceive(wr);
        if (rc != 0)
        {
            fail("postReceive on queue pair " + qp.qpNum() + " returned " + Errno.name(rc));
        }
    }

    /** Exactly the next {@code n} completions of {@code cq}; fails after {@link #WAIT_NANOS}. */
    List<Completion> await(final CompletionQueue cq, final int n)
    {
        return waiter.await(cq, n);
    }

    Completion awaitOne(final CompletionQueue cq)
    {
        return waiter.awaitOne(cq);
    }

    /** The next completion of {@code cq} if one arrives within {@code nanos}, else null (no failure). */
    Completion awaitOneWithin(final CompletionQueue cq, final long nanos)
    {
        return waiter.awaitOneWithin(cq, nanos);
    }

    void assertNoCompletion(final CompletionQueue cq, final String why)
    {
        waiter.assertEmpty(cq, why);
    }

    /**
     * Closes everything, last made first, then frees the memory; fails if any close threw. Then aborts the test
     * if siw left a check undone: requests it never completed ({@link #awaitSomePostedInErr}) or a state it could
     * not report ({@link #assertState}).
     */
    @Override
    public void close()
    {
        closeAll(resources, arena, null);
        if (!lostRequests.isEmpty())
        {
            Assumptions.abort(KnownDeviations.SIW_POSTED_IN_ERR_NOT_COMPLETED + "; every other check of the test " +
                "passed: " + lostRequests + (uncheckedStates.isEmpty() ? "" : "; and " +
                KnownDeviations.SIW_QUERY_QP_NO_STATE + ": " + uncheckedStates) + "; kernel " +
                System.getProperty("os.version"));
        }
        if (!uncheckedStates.isEmpty())
        {
            Assumptions.abort(KnownDeviations.SIW_QUERY_QP_NO_STATE + "; every other check of the test passed, " +
                uncheckedStates.size() + " state check(s) could not be made: " + uncheckedStates + "; kernel " +
                System.getProperty("os.version"));
        }
    }

    private static void closeAll(final Deque<AutoCloseable> resources, final Arena arena, final Throwable primary)
    {
        AssertionError failure = null;
        while (!resources.isEmpty())
        {
            final AutoCloseable resource = resources.pop();
            try
            {
                resource.close();
            }
            catch (final Exception e)
            {
                if (primary != null)
                {
                    primary.addSuppressed(e);
                }
                else
                {
                    if (failure == null)
                    {
                        failure = new AssertionError("closing the fixture's resources failed");
                    }
                    failure.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (failure != null)
        {
            throw failure;
        }
    }
}
