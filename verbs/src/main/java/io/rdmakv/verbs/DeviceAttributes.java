package io.rdmakv.verbs;

/**
 * What a device can do (the parts of {@code struct ibv_device_attr} and the port that rdmakv uses).
 *
 * @param maxQpWr          most outstanding work requests per queue
 * @param maxSge           most scatter-gather elements per work request
 * @param maxCqe           most entries per completion queue
 * @param maxMrSize        largest memory region in bytes
 * @param maxQpRdAtomic    most outstanding RDMA READs and atomics a queue pair may issue
 * @param atomicCapability {@code NONE}, {@code HCA} or {@code GLOB} ({@code enum ibv_atomic_cap})
 * @param maxInlineData    most inline bytes a send work request can carry
 * @param portState        the port's state as text, e.g. {@code ACTIVE}
 * @param linkLayer        {@code InfiniBand}, {@code Ethernet} or {@code TCP}
 */
public record DeviceAttributes(
    int maxQpWr,
    int maxSge,
    int maxCqe,
    long maxMrSize,
    int maxQpRdAtomic,
    String atomicCapability,
    int maxInlineData,
    String portState,
    String linkLayer)
{
}
