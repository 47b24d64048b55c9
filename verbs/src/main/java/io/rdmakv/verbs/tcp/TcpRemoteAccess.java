package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.Opcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static io.rdmakv.verbs.tcp.TcpWire.ALL_MEMORY;

/**
 * What a {@link TcpResponder} does to registered memory: checks a request's key, bounds and access as a
 * NIC does ({@link #permits}), executes atomics ({@link #atomic}) and moves a READ's or a WRITE's data
 * between the connection's buffers and memory, a piece at a time ({@link #readInto}, {@link #writeFrom}),
 * remembering where the transfer in progress stands. Engine thread only, under the responder's lock.
 */
final class TcpRemoteAccess
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final TcpQueuePair qp;
    private final TcpProtectionDomain pd;
    private long address;
    private long remaining;

    TcpRemoteAccess(final TcpQueuePair qp, final TcpProtectionDomain pd)
    {
        this.qp = qp;
        this.pd = pd;
    }

    /** Whether this queue pair and the key (a region's, or a window's bound to this queue pair) allow the access. */
    boolean permits(final int rkey, final long addr, final long len, final int access)
    {
        return qp.allowsRemote(access) && pd.permits(qp, rkey, addr, len, access);
    }

    /** Starts a transfer of {@code len} bytes at {@code addr} (already permitted). */
    void start(final long addr, final long len)
    {
        address = addr;
        remaining = len;
    }

    /** Bytes of the transfer in progress not yet moved. */
    long remaining()
    {
        return remaining;
    }

    /** Copies the next piece of a READ's data from memory into the output, as much as it has room for. */
    void readInto(final TcpResponderSocket socket)
    {
        final int k = (int)Math.min(remaining, socket.tx.remaining());
        MemorySegment.copy(ALL_MEMORY, address, socket.txSegment, socket.tx.position(), k);
        socket.tx.position(socket.tx.position() + k);
        moved(k);
    }

    /** Copies the next piece of a WRITE's data from the input into memory, as much as has arrived. */
    void writeFrom(final TcpResponderSocket socket)
    {
        final int k = (int)Math.min(remaining, socket.rx.remaining());
        MemorySegment.copy(socket.rxSegment, socket.rx.position(), ALL_MEMORY, address, k);
        socket.rx.position(socket.rx.position() + k);
        moved(k);
    }

    private void moved(final int k)
    {
        address += k;
        remaining -= k;
    }

    /**
     * Executes a compare-and-swap or a fetch-and-add on the 8 bytes at {@code addr} (aligned and permitted)
     * and returns the value they held before.
     */
    static long atomic(final int opcode, final long addr, final long compareAdd, final long swap)
    {
        return opcode == Opcode.ATOMIC_CMP_AND_SWP ?
            (long)LONG.compareAndExchange(ALL_MEMORY, addr, compareAdd, swap) :
            (long)LONG.getAndAdd(ALL_MEMORY, addr, compareAdd);
    }
}
