package io.rdmakv.verbs;

import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.MemorySegment;

/** A protection domain ({@code struct ibv_pd}): memory regions and queue pairs that may touch them. */
public interface ProtectionDomain extends AutoCloseable
{
    Context context();

    /**
     * Registers native memory. {@code access} is a set of {@link AccessFlags}; the region grants
     * remote peers exactly those accesses and nothing more.
     *
     * @param segment a native (off-heap) segment; it must stay alive until the region is closed
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    QueuePair createQueuePair(QueuePairConfig config);

    /**
     * Allocates a type-2 memory window ({@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}), unbound: it grants
     * nothing until a {@link SendWorkRequest#bindMemoryWindow bind} is posted on a queue pair of this
     * domain. The protection domain refuses to close while the window is open.
     *
     * @throws VerbsException with the errno where the device has no memory windows ({@code EOPNOTSUPP})
     *                        or no more of them ({@code ENOMEM})
     */
    MemoryWindow allocMemoryWindow();

    /** Idempotent. Throws {@link VerbsException} while memory regions or queue pairs are still open. */
    @Override
    void close();
}
