package io.rdmakv.verbs;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * A device's RDMA connection manager (rdma_cm): connects a queue pair of the device's own to a peer found by IP
 * address, with a little private data on the request that the listening side decides on. Only the
 * {@code ibverbs} provider has one ({@link Context#connectionManager()}); it is the control path (each call
 * allocates and may block up to its timeout).
 */
public interface ConnectionManager
{
    /** The most private data a connect request carries on every transport (InfiniBand and RoCE: 56 bytes). */
    int MAX_PRIVATE_DATA = 56;

    /**
     * The IP address of the network interface this device runs over (from its GID on RoCE, its MAC on iWARP), or
     * null when none is known: where a peer on this host reaches the device, loopback not being routable by
     * rdma_cm.
     */
    InetAddress deviceAddress();

    /** Listens on {@code address} (port 0: one chosen, see {@link Listener#address()}). */
    Listener listen(InetSocketAddress address, int backlog);

    /**
     * Connects {@code qp} (in RESET, or in INIT with its receives posted) to the listener at {@code remote}
     * within {@code timeoutNanos}; {@code initialized} runs once the queue pair is in INIT and before the
     * connection is requested (post the receives there). Throws on a rejection, an unreachable peer or the
     * deadline; nothing is left behind.
     */
    Connection connect(QueuePair qp, InetSocketAddress remote, byte[] privateData, ConnectOptions options,
        long timeoutNanos, Consumer<QueuePair> initialized);

    /** What a listener asks about each connect request. */
    interface Decision
    {
        /** The queue pair (in RESET) to connect for a request with {@code privateData}, or null to reject it. */
        QueuePair queuePairFor(byte[] privateData, InetSocketAddress peer);

        /** The queue pair is in INIT and the peer not yet answered: post its receives here. */
        default void initialized(final QueuePair qp)
        {
        }
    }

    /** One connection. Close it before its queue pair. One thread at a time. */
    interface Connection extends AutoCloseable
    {
        /**
         * Reads the connection's events for up to {@code timeoutNanos} (0: those there now); true once the peer
         * disconnected (the queue pair is then in ERR).
         */
        boolean pollDisconnected(long timeoutNanos);

        /**
         * What happened to the connection, with times (its connection manager's events and this side's steps), for
         * the message of a failure; empty when the provider keeps none.
         */
        default String history()
        {
            return "";
        }

        /** Disconnects (the queue pair to ERR) and releases the connection. Idempotent. */
        @Override
        void close();
    }

    /** A listening endpoint. One thread at a time. */
    interface Listener extends AutoCloseable
    {
        /** The address listened on, with the chosen port. */
        InetSocketAddress address();

        /**
         * Waits up to {@code timeoutNanos} for a connect request the decision takes and connects it, giving that
         * at least {@code establishNanos}; rejects the others. Null when none was taken in time.
         */
        Connection accept(long timeoutNanos, long establishNanos, ConnectOptions options, Decision decision);

        /** Connect requests rejected so far. */
        long rejectedCount();

        @Override
        void close();
    }
}
