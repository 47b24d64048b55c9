package io.rdmakv.verbs.tcp;

/**
 * The ring of a {@code tcp} send queue: what each posted work request's completion needs, by slot. The
 * poster fills the slot at {@link #head}, the completer empties the one at {@link #tail}; both hold the
 * send queue's lock, and {@link #hasOutstanding} may be read without it.
 *
 * <p>Every slot remembers the wr_id, the send opcode, whether it is signaled, the byte length, where a
 * READ's data or an atomic's original value lands ({@code destCount} scatter entries of at most
 * {@code maxSge}), and a preset status for a request that was never sent (a local protection error, a
 * broken connection, a flush), {@link #DONE_LOCALLY} for one executed on the spot with success (a memory
 * window bind or invalidation), or {@link #NOT_PRESET}.
 */
final class TcpSendSlots
{
    static final int NOT_PRESET = -1;
    /** A local operation (BIND_MW, LOCAL_INV) that succeeded when posted: no response to wait for. */
    static final int DONE_LOCALLY = -2;

    final int capacity;
    final int maxSge;
    final long[] wrId;
    final int[] opcode;
    final boolean[] signaled;
    final int[] preset;
    final int[] byteLen;
    final int[] destCount;
    final long[] destAddr;
    final int[] destLength;

    /** Posted requests so far; the next one goes to slot {@code head % capacity}. */
    volatile long head;
    /** Completed requests so far; the oldest outstanding one is in slot {@code tail % capacity}. */
    volatile long tail;

    TcpSendSlots(final int capacity, final int maxSge)
    {
        this.capacity = capacity;
        this.maxSge = maxSge;
        wrId = new long[capacity];
        opcode = new int[capacity];
        signaled = new boolean[capacity];
        preset = new int[capacity];
        byteLen = new int[capacity];
        destCount = new int[capacity];
        destAddr = new long[capacity * maxSge];
        destLength = new int[capacity * maxSge];
    }

    boolean hasOutstanding()
    {
        return head != tail;
    }
}
