package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ConnectionManager;
import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Brings two queue pairs from RESET to RTS against each other, checking each step: by exchanging their endpoints
 * (queue-pair number, GID, PSN) and stepping each through INIT, RTR and RTS, or through the provider's RDMA
 * connection manager (rdma_cm), as the store does with {@code --cm}.
 *
 * <p>{@code -Drdmakv.conformance.cm} ({@link #CM_PROPERTY}) picks which, for providers that have a connection
 * manager ({@code ibverbs}): {@code auto} (default) uses rdma_cm where the device needs it (iWARP: siw has no
 * queue-pair number exchange) and the exchange elsewhere, {@code rdmacm} rdma_cm on every device, {@code exchange}
 * the exchange (an iWARP device then fails with the reason). The {@code tcp} provider always exchanges.
 */
final class QueuePairConnector
{
    /** The system property choosing the connection setup: auto, rdmacm or exchange. */
    static final String CM_PROPERTY = "rdmakv.conformance.cm";

    private QueuePairConnector()
    {
    }

    /** {@link #CM_PROPERTY}, {@link ConnectionSetup#AUTO} when unset. */
    static ConnectionSetup requestedSetup()
    {
        final String name = System.getProperty(CM_PROPERTY);
        return name == null || name.isBlank() ? ConnectionSetup.AUTO : ConnectionSetup.parse(name.trim());
    }

    /**
     * Whether queue pairs of {@code context} connect through rdma_cm in this run: never without a connection
     * manager ({@code tcp}), otherwise as {@link #requestedSetup()} says ({@code exchange} on an iWARP device
     * fails, naming the other setups).
     */
    static boolean usesConnectionManager(final Context context)
    {
        return context.connectionManager() != null && requestedSetup().usesConnectionManager(context);
    }

    /**
     * A connection made by {@link #connect}: the rdma_cm connections of both sides (closed, which disconnects
     * them, before their queue pairs), or nothing for the exchange. Idempotent.
     */
    interface Connected extends AutoCloseable
    {
        Connected NONE = () -> { };

        @Override
        void close();

        /** Closes the responder's side only (its rdma_cm connection: a disconnect), as its process going away would. */
        default void closeResponder()
        {
        }
    }

    /**
     * Connects {@code a} (the requester, on the client side) to {@code b} (the responder) by the setup of
     * {@link #usesConnectionManager}: {@link #exchange} or {@link #throughConnectionManager}. Close what it
     * returns before the queue pairs (the fixture does, when it tracks it).
     */
    static Connected connect(
        final QueuePair a, final ConnectOptions aOptions, final QueuePair b, final ConnectOptions bOptions)
    {
        if (usesConnectionManager(b.protectionDomain().context()))
        {
            return throughConnectionManager(a, aOptions, b, bOptions);
        }
        exchange(a, aOptions, b, bOptions);
        return Connected.NONE;
    }

    /**
     * Connects two queue pairs through rdma_cm as a client and a node would: {@code b}'s device listens on its
     * own IP address ({@link ConnectionManager#deviceAddress()}, port chosen), {@code a}'s connects to it with a
     * random ticket as private data, and the listener takes only a request carrying that ticket, for {@code b}.
     * Both must end in RTS (not checked on siw, which reports no state). Bounded by {@link VerbsFixture#WAIT_NANOS}.
     */
    static Connected throughConnectionManager(
        final QueuePair a, final ConnectOptions aOptions, final QueuePair b, final ConnectOptions bOptions)
    {
        final ConnectionManager server = b.protectionDomain().context().connectionManager();
        final ConnectionManager client = a.protectionDomain().context().connectionManager();
        assertNotNull(server, "no connection manager on " + b.protectionDomain().context().deviceName());
        assertNotNull(client, "no connection manager on " + a.protectionDomain().context().deviceName());
        final InetAddress address = server.deviceAddress();
        assertNotNull(address, () -> "device " + b.protectionDomain().context().deviceName() + " has no IP " +
            "address for rdma_cm to listen on (give its network interface an IPv4 address)");
        final byte[] ticket = ByteBuffer.allocate(16).putLong(System.nanoTime()).putInt(a.qpNum())
            .putInt(b.qpNum()).array();
        // siw reports RESET in every state (KnownDeviations.SIW_QUERY_QP_NO_STATE): there the established connection
        // is what says the pair is connected, and the traffic of the test what says it works
        final boolean stateUnreported = KnownDeviations.softIwarp(b.protectionDomain().context());
        ConnectionManager.Connection accepted = null;
        ConnectionManager.Connection connected = null;
        try (ConnectionManager.Listener listener = server.listen(new InetSocketAddress(address, 0), 4))
        {
            final CompletableFuture<ConnectionManager.Connection> accepting = CompletableFuture.supplyAsync(() ->
                listener.accept(VerbsFixture.WAIT_NANOS, VerbsFixture.WAIT_NANOS, bOptions, (data, peer) ->
                    carries(data, ticket) ? b : null),
                runnable -> Thread.ofPlatform().daemon().name("conformance-accept-" + b.qpNum()).start(runnable));
            try
            {
                connected = client.connect(a, listener.address(), ticket, aOptions, VerbsFixture.WAIT_NANOS, qp ->
                {
                    if (!stateUnreported)
                    {
                        assertEquals(QpState.INIT, qp.state(), "the connecting queue pair, once initialized");
                    }
                });
            }
            finally
            {
                // the listener may close only once its accept is over (it ends by the same deadline)
                try
                {
                    accepted = accepting.get(2 * VerbsFixture.WAIT_NANOS, TimeUnit.NANOSECONDS);
                }
                catch (final ExecutionException | TimeoutException e)
                {
                    if (connected != null)
                    {
                        throw new AssertionError("rdma_cm: the listener on " + listener.address() + " did not " +
                            "accept queue pair " + a.qpNum() + "'s request for " + b.qpNum(), e);
                    }
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while connecting", e);
                }
            }
            assertNotNull(accepted, () -> "rdma_cm: no request for queue pair " + b.qpNum() + " reached " +
                listener.address() + " within " + TimeUnit.NANOSECONDS.toMillis(VerbsFixture.WAIT_NANOS) + " ms (" +
                listener.rejectedCount() + " rejected)");
            if (!stateUnreported)
            {
                assertEquals(QpState.RTS, a.state(), "the connecting queue pair after rdma_cm connected it");
                assertEquals(QpState.RTS, b.state(), "the accepting queue pair after rdma_cm connected it");
            }
            final ConnectionManager.Connection aSide = connected;
            final ConnectionManager.Connection bSide = accepted;
            return new Connected()
            {
                @Override
                public void close()
                {
                    try
                    {
                        aSide.close();
                    }
                    finally
                    {
                        bSide.close();
                    }
                }

                @Override
                public void closeResponder()
                {
                    bSide.close();
                }
            };
        }
        catch (final RuntimeException | Error e)
        {
            if (connected != null)
            {
                connected.close();
            }
            if (accepted != null)
            {
                accepted.close();
            }
            throw e;
        }
    }

    /** Whether {@code data} is {@code ticket}, or the ticket followed by zeros (InfiniBand and RoCE pad it). */
    static boolean carries(final byte[] data, final byte[] ticket)
    {
        if (data == null || data.length < ticket.length ||
            !Arrays.equals(data, 0, ticket.length, ticket, 0, ticket.length))
        {
            return false;
        }
        for (int i = ticket.length; i < data.length; i++)
        {
            if (data[i] != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Connects two queue pairs as two processes would: each side's endpoint crosses "the wire" as bytes
     * ({@link QueuePairEndpoint#toBytes()} and {@link QueuePairEndpoint#fromBytes}), then both sides step
     * INIT, RTR, RTS in lockstep on two threads (so a provider whose transition waits for the peer works
     * as well as one that does not), each step's state checked. Bounded by {@link VerbsFixture#WAIT_NANOS}.
     */
    static void exchange(
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
