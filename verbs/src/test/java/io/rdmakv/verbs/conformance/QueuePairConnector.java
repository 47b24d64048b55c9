package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** Brings two queue pairs from RESET to RTS against each other, checking each step. */
final class QueuePairConnector
{
    private QueuePairConnector()
    {
    }

    /**
     * Connects two queue pairs as two processes would: each side's endpoint crosses "the wire" as bytes
     * ({@link QueuePairEndpoint#toBytes()} and {@link QueuePairEndpoint#fromBytes}), then both sides step
     * INIT, RTR, RTS in lockstep on two threads (so a provider whose transition waits for the peer works
     * as well as one that does not), each step's state checked. Bounded by {@link VerbsFixture#WAIT_NANOS}.
     */
    static void connect(
        final QueuePair a, final ConnectOptions aOptions, final QueuePair b, final ConnectOptions bOptions)
    {
        final QueuePairEndpoint aEndpoint = overTheWire(a.localEndpoint());
        final QueuePairEndpoint bEndpoint = overTheWire(b.localEndpoint());
        final CyclicBarrier step = new CyclicBarrier(2);
        final FutureTask<Void> other = new FutureTask<>(() ->
        {
            bringUp(b, aEndpoint, bOptions, step);
            return null;
        });
        Thread.ofPlatform().daemon().name("conformance-connect-" + b.qpNum()).start(other);
        try
        {
            bringUp(a, bEndpoint, aOptions, step);
            other.get(VerbsFixture.WAIT_NANOS, TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new AssertionError("connecting queue pair " + b.qpNum() + " failed", e.getCause());
        }
        catch (final TimeoutException e)
        {
            fail("connecting queue pair " + b.qpNum() + " did not finish within " +
                TimeUnit.NANOSECONDS.toMillis(VerbsFixture.WAIT_NANOS) + " ms");
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while connecting", e);
        }
    }

    /** The endpoint as its peer sees it after encoding and decoding; fails unless the round trip is exact. */
    static QueuePairEndpoint overTheWire(final QueuePairEndpoint endpoint)
    {
        final byte[] bytes = endpoint.toBytes();
        assertEquals(endpoint.encodedLength(), bytes.length, "encoded length of " + endpoint);
        final QueuePairEndpoint decoded = QueuePairEndpoint.fromBytes(bytes);
        assertEquals(endpoint, decoded, "endpoint after toBytes/fromBytes");
        return decoded;
    }

    private static void bringUp(
        final QueuePair qp, final QueuePairEndpoint remote, final ConnectOptions options, final CyclicBarrier step)
    {
        try
        {
            qp.modifyToInit(options);
            assertEquals(QpState.INIT, qp.state(), "after modifyToInit");
            awaitStep(step);
            qp.modifyToRtr(remote, options);
            assertEquals(QpState.RTR, qp.state(), "after modifyToRtr");
            awaitStep(step);
            qp.modifyToRts(options);
            assertEquals(QpState.RTS, qp.state(), "after modifyToRts");
            awaitStep(step);
        }
        catch (final RuntimeException | Error e)
        {
            step.reset();
            throw e;
        }
    }

    private static void awaitStep(final CyclicBarrier step)
    {
        try
        {
            step.await(VerbsFixture.WAIT_NANOS, TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while connecting", e);
        }
        catch (final BrokenBarrierException | TimeoutException e)
        {
            throw new AssertionError("the peer queue pair did not reach the same connection step", e);
        }
    }
}
