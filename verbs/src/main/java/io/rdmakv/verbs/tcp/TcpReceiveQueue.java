package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.ReceiveWorkRequest;

/**
 * The posted receive work requests of one queue pair: a ring filled by the application's
 * {@code postReceive} and consumed by the responder thread when a SEND arrives.
 */
final class TcpReceiveQueue
{
    private final int capacity;
    private final int maxSge;
    private final long[] wrId;
    private final int[] numSge;
    private final long[] sgeAddr;
    private final int[] sgeLength;
    private final int[] sgeLkey;
    private int head;
    private int count;

    TcpReceiveQueue(final int capacity, final int maxSge)
    {
        this.capacity = Math.max(1, capacity);
        this.maxSge = Math.max(1, maxSge);
        wrId = new long[this.capacity];
        numSge = new int[this.capacity];
        sgeAddr = new long[this.capacity * this.maxSge];
        sgeLength = new int[this.capacity * this.maxSge];
        sgeLkey = new int[this.capacity * this.maxSge];
    }

    int maxSge()
    {
        return maxSge;
    }

    /** Appends a copy of {@code wr}; false when the queue is full. Caller holds the queue's lock. */
    boolean offer(final ReceiveWorkRequest wr)
    {
        if (count == capacity)
        {
            return false;
        }
        final int i = (head + count) % capacity;
        final int n = wr.numSge();
        wrId[i] = wr.wrId();
        numSge[i] = n;
        for (int s = 0; s < n; s++)
        {
            sgeAddr[i * maxSge + s] = wr.sgeAddr(s);
            sgeLength[i * maxSge + s] = wr.sgeLength(s);
            sgeLkey[i * maxSge + s] = wr.sgeLkey(s);
        }
        count++;
        return true;
    }

    boolean isEmpty()
    {
        return count == 0;
    }

    /** Index of the oldest posted request; valid until {@link #remove()}. */
    int peek()
    {
        return head;
    }

    void remove()
    {
        head = (head + 1) % capacity;
        count--;
    }

    long wrId(final int i)
    {
        return wrId[i];
    }

    int numSge(final int i)
    {
        return numSge[i];
    }

    long sgeAddr(final int i, final int s)
    {
        return sgeAddr[i * maxSge + s];
    }

    int sgeLength(final int i, final int s)
    {
        return sgeLength[i * maxSge + s];
    }

    int sgeLkey(final int i, final int s)
    {
        return sgeLkey[i * maxSge + s];
    }
}
