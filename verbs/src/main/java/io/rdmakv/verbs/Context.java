package io.rdmakv.verbs;

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

    /** Idempotent. Throws {@link VerbsException} while children are still open. */
    @Override
    void close();
}
