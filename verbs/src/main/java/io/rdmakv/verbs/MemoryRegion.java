package io.rdmakv.verbs;

import java.lang.foreign.MemorySegment;

/** A registered memory region ({@code struct ibv_mr}). Closing it deregisters the memory; it does not free it. */
public interface MemoryRegion extends AutoCloseable
{
    ProtectionDomain protectionDomain();

    /** The registered memory. */
    MemorySegment segment();

    /** Start address: what peers use as the base of remote addresses. */
    long address();

    long length();

    int lkey();

    int rkey();

    /** The {@link AccessFlags} it was registered with. */
    int access();

    /** Idempotent. */
    @Override
    void close();
}
