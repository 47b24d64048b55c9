package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;

import java.nio.channels.SocketChannel;

/**
 * The requester half of a {@code tcp} queue pair: the send queue. {@link #post} checks work requests,
 * fills their {@link TcpSendSlots slots} and turns them into request frames on the outbound connection
 * ({@link TcpRequestEncoder}; a chain becomes one socket write: one doorbell); {@link #poll} has the
 * {@link TcpSendCompleter} read the responses, in order, on the polling thread and turn them into
 * completions. One lock, this object's, covers both halves.
 */
final class TcpSendQueue
{
    private final TcpQueuePair qp;
    private final TcpProtectionDomain pd;
    private final int maxInline;
    private final TcpSendSlots slots;
    private final TcpRequestEncoder encoder = new TcpRequestEncoder();
    private final TcpSendCompleter completer;
    private boolean sendBlocked;

    TcpSendQueue(final TcpQueuePair qp, final TcpProtectionDomain pd, final int capacity, final int maxSge,
        final int maxInline)
    {
        this.qp = qp;
        this.pd = pd;
        this.maxInline = maxInline;
        this.slots = new TcpSendSlots(capacity, maxSge);
        this.completer = new TcpSendCompleter(qp, slots);
    }

    synchronized void connected(final SocketChannel channel)
    {
        encoder.connected(channel);
        completer.connected(channel);
    }

    boolean hasOutstanding()
    {
        return slots.hasOutstanding();
    }

    /** Posts {@code first} and the chain behind it. Returns 0 or an errno; never throws on the data path. */
    synchronized int post(final SendWorkRequest first)
    {
        final QpState state = qp.state();
        if (state != QpState.RTS && state != QpState.ERR)
        {
            return Errno.EINVAL;
        }
        int rc = 0;
        SendWorkRequest wr = first;
        while (wr != null)
        {
            rc = enqueue(wr, state == QpState.ERR);
            if (rc != 0)
            {
                break;
            }
            final long next = wr.nextAddress();
            wr = next == 0 ? null : wr.owner().byAddress(next);
            if (next != 0 && wr == null)
            {
                rc = Errno.EINVAL;
            }
        }
        if (encoder.hasPending() && !encoder.flush())
        {
            blockSends();
        }
        qp.sendPosted();
        return rc;
    }

    private int enqueue(final SendWorkRequest wr, final boolean flushOnly)
    {
        final int capacity = slots.capacity;
        final int maxSge = slots.maxSge;
        if (slots.head - slots.tail == capacity)
        {
            return Errno.ENOMEM;
        }
        final int op = wr.opcode();
        if (op == Opcode.BIND_MW || op == Opcode.LOCAL_INV)
        {
            return enqueueLocal(wr, op, flushOnly);
        }
        final int flags = wr.sendFlags();
        final int numSge = wr.numSge();
        final boolean atomic = op == Opcode.ATOMIC_CMP_AND_SWP || op == Opcode.ATOMIC_FETCH_AND_ADD;
        final boolean inline = (flags & SendFlags.INLINE) != 0;
        if (WcOpcode.ofSendOpcode(op) < 0 || op == Opcode.RDMA_WRITE_WITH_IMM || op == Opcode.SEND_WITH_IMM ||
            numSge > maxSge || (atomic && (numSge != 1 || wr.sgeLength(0) != 8)) ||
            (inline && (op == Opcode.RDMA_READ || atomic)))
        {
            return Errno.EINVAL;
        }
        long total = 0;
        for (int s = 0; s < numSge; s++)
        {
            total += Integer.toUnsignedLong(wr.sgeLength(s));
        }
        if (total > Integer.MAX_VALUE || (inline && total > maxInline))
        {
            return Errno.EINVAL;
        }

        final int slot = (int)(slots.head % capacity);
        slots.wrId[slot] = wr.wrId();
        slots.opcode[slot] = op;
        slots.signaled[slot] = (flags & SendFlags.SIGNALED) != 0;
        slots.byteLen[slot] = (int)total;
        slots.destCount[slot] = 0;
        slots.preset[slot] = TcpSendSlots.NOT_PRESET;

        if (flushOnly || sendBlocked)
        {
            slots.preset[slot] = WcStatus.WR_FLUSH_ERR.code();
        }
        else if (!inline && !localAccessOk(wr, numSge, op == Opcode.RDMA_READ || atomic))
        {
            slots.preset[slot] = WcStatus.LOC_PROT_ERR.code();
            sendBlocked = true;
        }
        else if (!encoder.encode(wr, op, numSge, (int)total, atomic))
        {
            slots.preset[slot] = WcStatus.RETRY_EXC_ERR.code();
            blockSends();
        }
        if (slots.preset[slot] == TcpSendSlots.NOT_PRESET && (op == Opcode.RDMA_READ || atomic))
        {
            for (int s = 0; s < numSge; s++)
            {
                slots.destAddr[slot * maxSge + s] = wr.sgeAddr(s);
                slots.destLength[slot * maxSge + s] = wr.sgeLength(s);
            }
            slots.destCount[slot] = numSge;
        }
        slots.head = slots.head + 1;
        return 0;
    }

    /**
     * A memory-window bind or invalidation: executed here, in posting order, as a NIC's send queue runs
     * it (no message to the peer); its completion waits its turn behind the requests posted before it.
     * A failure ({@code MW_BIND_ERR}, {@code LOC_QP_OP_ERR}) fails the queue pair like a local protection
     * error: what was posted after it flushes.
     */
    private int enqueueLocal(final SendWorkRequest wr, final int op, final boolean flushOnly)
    {
        if (wr.numSge() != 0)
        {
            return Errno.EINVAL;
        }
        final int slot = (int)(slots.head % slots.capacity);
        slots.wrId[slot] = wr.wrId();
        slots.opcode[slot] = op;
        slots.signaled[slot] = (wr.sendFlags() & SendFlags.SIGNALED) != 0;
        slots.byteLen[slot] = 0;
        slots.destCount[slot] = 0;
        if (flushOnly || sendBlocked)
        {
            slots.preset[slot] = WcStatus.WR_FLUSH_ERR.code();
        }
        else
        {
            final WcStatus status = op == Opcode.BIND_MW ? bind(wr) : invalidate(wr.invalidateRkey());
            slots.preset[slot] = status == WcStatus.SUCCESS ? TcpSendSlots.DONE_LOCALLY : status.code();
            sendBlocked = status != WcStatus.SUCCESS;
        }
        slots.head = slots.head + 1;
        return 0;
    }

    private WcStatus bind(final SendWorkRequest wr)
    {
        if (!(wr.bindWindow() instanceof TcpMemoryWindow mw) || !(wr.bindRegion() instanceof TcpMemoryRegion mr))
        {
            return WcStatus.MW_BIND_ERR;
        }
        return mw.bind(qp, wr.bindRkey(), mr, wr.bindAddr(), wr.bindLength(), wr.bindAccess());
    }

    /** rxe invalidates windows only this way (a region key fails too: the tcp provider has no fast-registered regions). */
    private WcStatus invalidate(final int rkey)
    {
        final TcpMemoryWindow mw = pd.window(rkey);
        return mw == null ? WcStatus.LOC_QP_OP_ERR : mw.invalidate(rkey);
    }

    private boolean localAccessOk(final SendWorkRequest wr, final int numSge, final boolean writesLocal)
    {
        for (int s = 0; s < numSge; s++)
        {
            final TcpMemoryRegion mr = pd.lookup(wr.sgeLkey(s));
            if (mr == null || !mr.contains(wr.sgeAddr(s), Integer.toUnsignedLong(wr.sgeLength(s))) ||
                (writesLocal && !mr.allows(AccessFlags.LOCAL_WRITE)))
            {
                return false;
            }
        }
        return true;
    }

    private void blockSends()
    {
        sendBlocked = true;
        encoder.discard();
    }

    /**
     * Completes what the responses on the socket allow, writing completions from index {@code start}.
     * Returns the new count. Unsignaled successes produce no completion; errors and flushes always do.
     * With {@code readSocket} false it completes only from bytes already read (and flushes): no system call.
     */
    synchronized int poll(final WorkCompletions completions, final int start, final boolean readSocket)
    {
        return completer.poll(completions, start, readSocket);
    }
}
