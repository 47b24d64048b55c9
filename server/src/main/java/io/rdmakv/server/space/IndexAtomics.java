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

    /**
     * Compare-and-swaps of {@code count} index words, in order: word {@code i} at {@code regionOffsets[i]} from {@code
     * expected[i]} to {@code swaps[i]}; the word each found lands in {@code found[i]} (equal to {@code expected[i]}
     * where it swapped). For many words at once (a partition freeze): on HCA devices one posted chain of loopback
     * CASes per {@link LoopbackIndexAtomics#BATCH}, instead of a round trip each. This default does them one by one.
     */
    default void compareAndSwap(final long[] regionOffsets, final long[] expected, final long[] swaps,
        final long[] found, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            found[i] = compareAndSwap(regionOffsets[i], expected[i], swaps[i]);
        }
    }

    /** Reads the word with acquire semantics (a plain read is atomic against RDMA atomics on every device). */
    long get(long regionOffset);

    @Override
    void close();
}
