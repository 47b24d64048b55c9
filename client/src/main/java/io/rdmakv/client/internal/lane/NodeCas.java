package io.rdmakv.client.internal.lane;

import io.rdmakv.common.protocol.SlotCasMessage;
import io.rdmakv.common.protocol.SlotCasReplyMessage;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.peer.Status;
import io.rdmakv.verbs.SendWorkRequest;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A lane's index CASes on a node whose clients cannot CAS its index (HELLO_OK's node-assisted flag: its device has
 * no remote atomics): the CASes a doorbell would have carried are collected ({@link #add}), then sent in one
 * SLOT_CAS on the session's control channel, behind the doorbell's other requests (a block's WRITE, a batch's
 * READs) in the same post ({@link #call}); the node runs them in order through its own atomics and answers the word
 * each found, which lands where the RDMA CAS's original value would have ({@link LaneBuffers#ATOMIC}, {@link
 * LaneBuffers#LOCK}, ...), so the protocols read their results as before. One round trip, like the doorbell it
 * replaces, plus the node's control thread's turn. Owned by the lane's thread; allocation-free.
 */
public final class NodeCas
{
    private final ControlChannel control;
    private final MemorySegment mem;
    private final long indexAddress;
    private final long[] offsets = new long[SlotCasMessage.MAX_ENTRIES];
    private final long[] expected = new long[SlotCasMessage.MAX_ENTRIES];
    private final long[] swaps = new long[SlotCasMessage.MAX_ENTRIES];
    private final int[] results = new int[SlotCasMessage.MAX_ENTRIES];
    private int count;

    /**
     * @param mem          the lane's memory (its {@link LaneBuffers}, the control area in it)
     * @param indexAddress the node's region's remote address: a slot's region offset is its address minus this
     */
    public NodeCas(final ControlChannel control, final MemorySegment mem, final long indexAddress)
    {
        this.control = control;
        this.mem = mem;
        this.indexAddress = indexAddress;
    }

    /**
     * Adds a CAS of the word at remote address {@code address} from {@code expected} to {@code swap}, whose
     * original value goes to offset {@code resultOffset} of the lane's memory.
     */
    public void add(final long address, final long expected, final long swap, final int resultOffset)
    {
        if (count == offsets.length)
        {
            throw new IllegalStateException("more than " + offsets.length + " CASes in one doorbell");
        }
        offsets[count] = address - indexAddress;
        this.expected[count] = expected;
        swaps[count] = swap;
        results[count] = resultOffset;
        count++;
    }

    /** CASes added since the last {@link #call} or {@link #clear}. */
    public int size()
    {
        return count;
    }

    public void clear()
    {
        count = 0;
    }

    /** Makes {@code wr} the SEND of a SLOT_CAS, for a chain of the caller's array to link on to ({@link #call}). */
    public void prepareSend(final SendWorkRequest wr)
    {
        control.prepareSend(wr);
    }

    /**
     * Posts the chain from {@code first} (unsignaled requests linked on to {@code send}, a {@link #prepareSend
     * prepared} SEND of the same array; or both null: the SEND alone) carrying the SLOT_CAS of the CASes added, waits
     * for the node's answer and puts each original value where its CAS asked. Returns {@link Status#OK}, the
     * session's failure, or {@link Status#REMOTE_ERROR} when the node refused (ERROR) or answered something else.
     */
    public int call(final SendWorkRequest first, final SendWorkRequest send)
    {
        final int n = count;
        count = 0;
        final long requestId = control.nextRequestId();
        final int at = control.sendOffset();
        SlotCasMessage.begin(mem, at, requestId);
        for (int i = 0; i < n; i++)
        {
            SlotCasMessage.entry(mem, at, i, offsets[i], expected[i], swaps[i]);
        }
        final int buffer = control.exchange(first, send, SlotCasMessage.finish(mem, at, n), requestId);
        if (buffer < 0)
        {
            return buffer;
        }
        final int reply = control.received(buffer);
        int rc = Status.REMOTE_ERROR;
        if (SlotCasReplyMessage.count(mem, reply, control.lastReceiveLength(), n) == n)
        {
            for (int i = 0; i < n; i++)
            {
                mem.set(ValueLayout.JAVA_LONG_UNALIGNED, results[i], SlotCasReplyMessage.seen(mem, reply, i));
            }
            rc = Status.OK;
        }
        return control.release(buffer) ? rc : Status.CONNECTION_LOST;
    }
}
