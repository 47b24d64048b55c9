package io.rdmakv.verbs;

import io.rdmakv.verbs.resource.VerbsException;

/**
 * An open RDMA device ({@code struct ibv_context}). The root of every other resource: closing it
 * while protection domains or completion queues are still open fails with a clear error.
 */
public interface Context extends AutoCloseable
{
    /** The provider's name: {@code tcp} or {@code ibverbs}. */
    String providerName();

    /** The device's name, e.g. {@code rxe0}, {@code mlx5_0}, {@code tcp0}. */
    String deviceName();

    DeviceAttributes attributes();

    ProtectionDomain allocateProtectionDomain();

    /** A completion queue with room for at least {@code capacity} entries. */
    CompletionQueue createCompletionQueue(int capacity);

    /**
     * Connections the device refused while setting them up: for {@code tcp}, peers that failed a check
     * (not a requester's hello, an unknown queue pair, a wrong secret, a queue pair that expects another
     * peer or already has one) or did not finish their handshake by its deadline. {@code ibverbs}: 0, a NIC
     * drops such packets itself and counts nothing here.
     */
    default long rejectedConnections()
    {
        return 0;
    }

    /**
     * Calls {@code listener}, once, with the reason when the device can no longer do its work (for {@code tcp}:
     * its software NIC cannot accept connections any more, or ran out of memory setting one up). The owner
     * should stop using the device and say so. {@code ibverbs}: never called yet.
     */
    default void onFatal(final java.util.function.Consumer<String> listener)
    {
    }

    /** The device's RDMA connection manager (rdma_cm), or null where the provider has none ({@code tcp}). */
    default ConnectionManager connectionManager()
    {
        return null;
    }

    /**
     * Whether queue pairs of this device can only be connected through {@link #connectionManager()}: an iWARP
     * device (siw, Chelsio, E810 in iWARP mode) has no queue-pair number exchange.
     */
    default boolean requiresConnectionManager()
    {
        return false;
    }

    /** Idempotent. Throws {@link VerbsException} while children are still open. */
    @Override
    void close();
}
