package io.rdmakv.server.space;

/**
 * How the node changes an 8-byte word of its own index that clients compare-and-swap (insert locks,
 * slots). RDMA atomics on a device whose atomic capability is {@code HCA} (ConnectX, rxe) are atomic only
 * against other RDMA atomics, not against the CPU's: there every such change must itself be an RDMA CAS
 * (through a loopback queue pair). On {@code GLOB} devices and the {@code tcp} provider (whose responder
 * executes remote atomics as CPU CAS on the same memory) the CPU's CAS is atomic against clients' too.
 */
public interface IndexAtomics extends AutoCloseable
{
    /**
     * Compare-and-swap of the index word {@code regionOffset} bytes into the region (8-byte aligned, inside
     * the header and index).
     *
     * @return the word's value before: equal to {@code expected} when the swap happened
     */
    long compareAndSwap(long regionOffset, long expected, long swap);

    /** Reads the word with acquire semantics (a plain read is atomic against RDMA atomics on every device). */
    long get(long regionOffset);

    @Override
    void close();
}
