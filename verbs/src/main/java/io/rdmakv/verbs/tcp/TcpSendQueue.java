package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.Errno;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

import static io.rdmakv.verbs.tcp.TcpWire.ALL_MEMORY;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The requester half of a {@code tcp} queue pair: the send queue. {@link #post} turns work requests
 * into request frames on the outbound connection (a chain becomes one socket write: one doorbell);
 * {@link #poll} reads the responses, in order, on the polling thread and turns them into completions.
 *
 * <p>Every slot of the ring remembers what its completion needs: the wr_id, whether it is signaled,
 * where a READ's data or an atomic's original value lands, and a preset status for a request that
 * was never sent (a local protection error, a broken connection, a flush).
 */
final class TcpSendQueue
{
    private static final int NOT_PRESET = -1;

    private final TcpQueuePair qp;
    private final TcpProtectionDomain pd;
    private final int capacity;
    private final int maxSge;
    private final int maxInline;

    private final long[] wrId;
    private final int[] opcode;
    private final boolean[] signaled;
    private final int[] preset;
    private final int[] byteLen;
    private final int[] destCount;
    private final long[] destAddr;
    private final int[] destLength;

    private volatile long head;
    private volatile long tail;
    private boolean sendBlocked;

    private final ByteBuffer tx = ByteBuffer.allocateDirect(TcpWire.BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer rx = ByteBuffer.allocateDirect(TcpWire.BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(tx);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rx);
    private SocketChannel channel;

    private boolean responseHeaderRead;
    private int responseStatus;
    private int responseLength;
    private long responseValue;
    private int payloadDone;

    TcpSendQueue(final TcpQueuePair qp, final TcpProtectionDomain pd, final int capacity, final int maxSge,
        final int maxInline)
    {
        this.qp = qp;
        this.pd = pd;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        wrId = new long[capacity];
        opcode = new int[capacity];
        signaled = new boolean[capacity];
        preset = new int[capacity];
        byteLen = new int[capacity];
        destCount = new int[capacity];
        destAddr = new long[capacity * maxSge];
        destLength = new int[capacity * maxSge];
        rx.flip();
    }

    synchronized void connected(final SocketChannel channel)
    {
        this.channel = channel;
    }

    boolean hasOutstanding()
    {
        return head != tail;
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
        if (tx.position() > 0 && !flush())
        {
            blockSends();
        }
        return rc;
    }

    private int enqueue(final SendWorkRequest wr, final boolean flushOnly)
    {
        if (head - tail == capacity)
        {
            return Errno.ENOMEM;
        }
        final int op = wr.opcode();
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

        final int slot = (int)(head % capacity);
        wrId[slot] = wr.wrId();
        opcode[slot] = op;
        signaled[slot] = (flags & SendFlags.SIGNALED) != 0;
        byteLen[slot] = (int)total;
        destCount[slot] = 0;
        preset[slot] = NOT_PRESET;

        if (flushOnly || sendBlocked)
        {
            preset[slot] = WcStatus.WR_FLUSH_ERR.code();
        }
        else if (!inline && !localAccessOk(wr, numSge, op == Opcode.RDMA_READ || atomic))
        {
            preset[slot] = WcStatus.LOC_PROT_ERR.code();
            sendBlocked = true;
        }
        else if (!encode(wr, op, numSge, (int)total, atomic))
        {
            preset[slot] = WcStatus.RETRY_EXC_ERR.code();
            blockSends();
        }
        if (preset[slot] == NOT_PRESET && (op == Opcode.RDMA_READ || atomic))
        {
            for (int s = 0; s < numSge; s++)
            {
                destAddr[slot * maxSge + s] = wr.sgeAddr(s);
                destLength[slot * maxSge + s] = wr.sgeLength(s);
            }
            destCount[slot] = numSge;
        }
        head = head + 1;
        return 0;
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

    /** Appends the request frame (and payload) to the transmit buffer; false when the connection broke. */
    private boolean encode(final SendWorkRequest wr, final int op, final int numSge, final int total,
        final boolean atomic)
    {
        if (tx.remaining() < TcpWire.REQ_HEADER_LENGTH && !flush())
        {
            return false;
        }
        final int p = tx.position();
        tx.put(p + TcpWire.REQ_OPCODE_OFFSET, (byte)op);
        tx.put(p + TcpWire.REQ_FLAGS_OFFSET, (byte)0);
        tx.putShort(p + 2, (short)0);
        tx.putInt(p + TcpWire.REQ_LENGTH_OFFSET, total);
        if (atomic)
        {
            tx.putLong(p + TcpWire.REQ_REMOTE_ADDR_OFFSET, wr.atomicRemoteAddr());
            tx.putInt(p + TcpWire.REQ_RKEY_OFFSET, wr.atomicRkey());
            tx.putLong(p + TcpWire.REQ_COMPARE_ADD_OFFSET, wr.atomicCompareAdd());
            tx.putLong(p + TcpWire.REQ_SWAP_OFFSET, wr.atomicSwap());
        }
        else
        {
            tx.putLong(p + TcpWire.REQ_REMOTE_ADDR_OFFSET, wr.rdmaRemoteAddr());
            tx.putInt(p + TcpWire.REQ_RKEY_OFFSET, wr.rdmaRkey());
            tx.putLong(p + TcpWire.REQ_COMPARE_ADD_OFFSET, 0L);
            tx.putLong(p + TcpWire.REQ_SWAP_OFFSET, 0L);
        }
        tx.putInt(p + 20, 0);
        tx.position(p + TcpWire.REQ_HEADER_LENGTH);
        if (op == Opcode.RDMA_WRITE || op == Opcode.SEND)
        {
            for (int s = 0; s < numSge; s++)
            {
                long addr = wr.sgeAddr(s);
                long remaining = Integer.toUnsignedLong(wr.sgeLength(s));
                while (remaining > 0)
                {
                    if (!tx.hasRemaining() && !flush())
                    {
                        return false;
                    }
                    final int k = (int)Math.min(remaining, tx.remaining());
                    MemorySegment.copy(ALL_MEMORY, addr, txSegment, tx.position(), k);
                    tx.position(tx.position() + k);
                    addr += k;
                    remaining -= k;
                }
            }
            for (int pad = TcpWire.padding(total); pad > 0; pad--)
            {
                if (!tx.hasRemaining() && !flush())
                {
                    return false;
                }
                tx.put((byte)0);
            }
        }
        return true;
    }

    /** Writes the whole transmit buffer; false when the connection is broken. */
    private boolean flush()
    {
        tx.flip();
        try
        {
            int idle = 0;
            while (tx.hasRemaining())
            {
                if (channel.write(tx) == 0 && ++idle > 1000)
                {
                    Thread.yield();
                }
            }
            return true;
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
        finally
        {
            tx.clear();
        }
    }

    private void blockSends()
    {
        sendBlocked = true;
        tx.clear();
    }

    /**
     * Completes what the responses on the socket allow, writing completions from index {@code n}.
     * Returns the new count. Unsignaled successes produce no completion; errors and flushes always do.
     */
    synchronized int poll(final WorkCompletions completions, final int start)
    {
        int n = start;
        final int max = completions.capacity();
        final int qpNum = qp.qpNum();
        while (tail != head && n < max)
        {
            final int slot = (int)(tail % capacity);
            final int wcOpcode = WcOpcode.ofSendOpcode(opcode[slot]);
            if (qp.state() == QpState.ERR && !responseHeaderRead &&
                (preset[slot] != NOT_PRESET || fill(TcpWire.RESP_HEADER_LENGTH) <= 0))
            {
                // In ERR, responses that already arrived still complete (as they did on the wire); the rest flush.
                completions.at(n++).fill(wrId[slot], WcStatus.WR_FLUSH_ERR.code(), wcOpcode, 0, qpNum);
                tail = tail + 1;
                continue;
            }
            if (preset[slot] != NOT_PRESET)
            {
                completions.at(n++).fill(wrId[slot], preset[slot], wcOpcode, 0, qpNum);
                tail = tail + 1;
                qp.enterError();
                continue;
            }
            if (!responseHeaderRead)
            {
                final int got = fill(TcpWire.RESP_HEADER_LENGTH);
                if (got < 0)
                {
                    completions.at(n++).fill(wrId[slot], WcStatus.RETRY_EXC_ERR.code(), wcOpcode, 0, qpNum);
                    tail = tail + 1;
                    qp.enterError();
                    continue;
                }
                if (got == 0)
                {
                    break;
                }
                final int p = rx.position();
                responseStatus = rx.get(p + TcpWire.RESP_STATUS_OFFSET) & 0xff;
                responseLength = rx.getInt(p + TcpWire.RESP_LENGTH_OFFSET);
                responseValue = rx.getLong(p + TcpWire.RESP_VALUE_OFFSET);
                rx.position(p + TcpWire.RESP_HEADER_LENGTH);
                responseHeaderRead = true;
                payloadDone = 0;
            }
            if (responseStatus != 0)
            {
                responseHeaderRead = false;
                completions.at(n++).fill(wrId[slot], responseStatus, wcOpcode, 0, qpNum);
                tail = tail + 1;
                qp.enterError();
                continue;
            }
            if (opcode[slot] == Opcode.RDMA_READ)
            {
                final int got = receivePayload(slot);
                if (got < 0)
                {
                    responseHeaderRead = false;
                    completions.at(n++).fill(wrId[slot], WcStatus.RETRY_EXC_ERR.code(), wcOpcode, 0, qpNum);
                    tail = tail + 1;
                    qp.enterError();
                    continue;
                }
                if (payloadDone < responseLength + TcpWire.padding(responseLength))
                {
                    break;
                }
            }
            else if (destCount[slot] == 1)
            {
                ALL_MEMORY.set(JAVA_LONG_UNALIGNED, destAddr[slot * maxSge], responseValue);
            }
            responseHeaderRead = false;
            if (signaled[slot])
            {
                completions.at(n++).fill(wrId[slot], 0, wcOpcode, byteLen[slot], qpNum);
            }
            tail = tail + 1;
        }
        return n;
    }

    /** Moves available READ data into the slot's scatter list. Returns -1 when the connection broke. */
    private int receivePayload(final int slot)
    {
        final int padded = responseLength + TcpWire.padding(responseLength);
        while (payloadDone < padded)
        {
            if (payloadDone >= responseLength)
            {
                if (!rx.hasRemaining())
                {
                    final int got = fill(1);
                    if (got <= 0)
                    {
                        return got;
                    }
                }
                final int k = Math.min(rx.remaining(), padded - payloadDone);
                rx.position(rx.position() + k);
                payloadDone += k;
                continue;
            }
            if (!rx.hasRemaining())
            {
                final int got = fill(1);
                if (got <= 0)
                {
                    return got;
                }
            }
            int offset = payloadDone;
            int s = 0;
            while (offset >= destLength[slot * maxSge + s])
            {
                offset -= destLength[slot * maxSge + s];
                s++;
            }
            final int k = Math.min(rx.remaining(), Math.min(responseLength - payloadDone,
                destLength[slot * maxSge + s] - offset));
            MemorySegment.copy(rxSegment, rx.position(), ALL_MEMORY, destAddr[slot * maxSge + s] + offset, k);
            rx.position(rx.position() + k);
            payloadDone += k;
        }
        return 1;
    }

    /**
     * Makes at least {@code min} bytes readable if the socket has them now. Returns 1 when they are,
     * 0 when not yet, -1 when the connection is gone.
     */
    private int fill(final int min)
    {
        if (rx.remaining() >= min)
        {
            return 1;
        }
        if (channel == null)
        {
            return -1;
        }
        rx.compact();
        try
        {
            final int read = channel.read(rx);
            rx.flip();
            if (read < 0)
            {
                return -1;
            }
            return rx.remaining() >= min ? 1 : 0;
        }
        catch (final IOException | RuntimeException e)
        {
            rx.flip();
            return -1;
        }
    }
}
