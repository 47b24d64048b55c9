package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.rdmakv.verbs.tcp.TcpWire.ALL_MEMORY;

/**
 * The responder half of a {@code tcp} queue pair: the software NIC. Runs on its own provider thread,
 * never the application's; executes READ, WRITE, atomics and SEND against the protection domain's
 * registered memory in arrival order, enforcing keys, bounds, access flags and alignment as a NIC does.
 * Responses are batched: they go out when no complete request is left to execute.
 */
final class TcpResponder implements Runnable
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final TcpQueuePair qp;
    private final TcpProtectionDomain pd;
    private final SocketChannel channel;
    private final int requesterRnrRetry;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(TcpWire.BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer tx = ByteBuffer.allocateDirect(TcpWire.BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rx);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(tx);

    TcpResponder(final TcpQueuePair qp, final TcpProtectionDomain pd, final SocketChannel channel,
        final int requesterRnrRetry)
    {
        this.qp = qp;
        this.pd = pd;
        this.channel = channel;
        this.requesterRnrRetry = requesterRnrRetry;
        rx.flip();
    }

    @Override
    public void run()
    {
        try
        {
            while (qp.state().code() < QpState.RTR.code())
            {
                if (qp.state() == QpState.ERR || qp.isClosed())
                {
                    return;
                }
                LockSupport.parkNanos(50_000);
            }
            while (true)
            {
                if (rx.remaining() < TcpWire.REQ_HEADER_LENGTH)
                {
                    flush();
                    fill(TcpWire.REQ_HEADER_LENGTH);
                }
                if (!execute())
                {
                    flush();
                    qp.enterError();
                    return;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // The requester went away or the queue pair was closed under us: a NIC would time out.
            qp.peerGone();
        }
    }

    /** Executes one request; false after an error response, which moves the queue pair to ERR. */
    private boolean execute() throws IOException
    {
        final int p = rx.position();
        final int opcode = rx.get(p + TcpWire.REQ_OPCODE_OFFSET) & 0xff;
        final int length = rx.getInt(p + TcpWire.REQ_LENGTH_OFFSET);
        final long addr = rx.getLong(p + TcpWire.REQ_REMOTE_ADDR_OFFSET);
        final int rkey = rx.getInt(p + TcpWire.REQ_RKEY_OFFSET);
        final long compareAdd = rx.getLong(p + TcpWire.REQ_COMPARE_ADD_OFFSET);
        final long swap = rx.getLong(p + TcpWire.REQ_SWAP_OFFSET);
        rx.position(p + TcpWire.REQ_HEADER_LENGTH);
        final long len = Integer.toUnsignedLong(length);
        return switch (opcode)
        {
            case Opcode.RDMA_READ -> read(addr, rkey, len);
            case Opcode.RDMA_WRITE -> write(addr, rkey, len);
            case Opcode.SEND -> send(len);
            case Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD -> atomic(opcode, addr, rkey, compareAdd, swap);
            default -> respond(WcStatus.REM_INV_REQ_ERR, opcode, 0, 0L);
        };
    }

    /** Whether this queue pair and the key (a region's, or a window's bound to this queue pair) allow the access. */
    private boolean permits(final int rkey, final long addr, final long len, final int access)
    {
        return qp.allowsRemote(access) && pd.permits(qp, rkey, addr, len, access);
    }

    private boolean read(final long addr, final int rkey, final long len) throws IOException
    {
        if (!permits(rkey, addr, len, AccessFlags.REMOTE_READ))
        {
            return respond(WcStatus.REM_ACCESS_ERR, Opcode.RDMA_READ, 0, 0L);
        }
        header(WcStatus.SUCCESS, Opcode.RDMA_READ, (int)len, 0L);
        long from = addr;
        long remaining = len;
        while (remaining > 0)
        {
            if (!tx.hasRemaining())
            {
                flush();
            }
            final int k = (int)Math.min(remaining, tx.remaining());
            MemorySegment.copy(ALL_MEMORY, from, txSegment, tx.position(), k);
            tx.position(tx.position() + k);
            from += k;
            remaining -= k;
        }
        for (int pad = TcpWire.padding(len); pad > 0; pad--)
        {
            if (!tx.hasRemaining())
            {
                flush();
            }
            tx.put((byte)0);
        }
        return true;
    }

    private boolean write(final long addr, final int rkey, final long len) throws IOException
    {
        if (!permits(rkey, addr, len, AccessFlags.REMOTE_WRITE))
        {
            return respond(WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE, 0, 0L);
        }
        long to = addr;
        long remaining = len;
        while (remaining > 0)
        {
            if (!rx.hasRemaining())
            {
                flush();
                fill(1);
            }
            final int k = (int)Math.min(remaining, rx.remaining());
            MemorySegment.copy(rxSegment, rx.position(), ALL_MEMORY, to, k);
            rx.position(rx.position() + k);
            to += k;
            remaining -= k;
        }
        skip(TcpWire.padding(len));
        return respond(WcStatus.SUCCESS, Opcode.RDMA_WRITE, 0, 0L);
    }

    private boolean atomic(final int opcode, final long addr, final int rkey, final long compareAdd, final long swap)
        throws IOException
    {
        if ((addr & 7) != 0)
        {
            return respond(WcStatus.REM_INV_REQ_ERR, opcode, 0, 0L);
        }
        if (!permits(rkey, addr, 8, AccessFlags.REMOTE_ATOMIC))
        {
            return respond(WcStatus.REM_ACCESS_ERR, opcode, 0, 0L);
        }
        final long original = opcode == Opcode.ATOMIC_CMP_AND_SWP ?
            (long)LONG.compareAndExchange(ALL_MEMORY, addr, compareAdd, swap) :
            (long)LONG.getAndAdd(ALL_MEMORY, addr, compareAdd);
        return respond(WcStatus.SUCCESS, opcode, 0, original);
    }

    private boolean send(final long len) throws IOException
    {
        final TcpReceiveQueue rq = qp.receiveQueue();
        final int slot;
        synchronized (rq)
        {
            if (rq.isEmpty())
            {
                flush();
                waitForReceive(rq);
            }
            if (rq.isEmpty())
            {
                // An RNR NAK fails the requester's queue pair; this one stays usable, as on a NIC.
                skip(len + TcpWire.padding(len));
                respond(WcStatus.RNR_RETRY_EXC_ERR, Opcode.SEND, 0, 0L);
                return true;
            }
            slot = rq.peek();
            rq.remove();
        }
        final long wrId = rq.wrId(slot);
        long capacity = 0;
        for (int s = 0; s < rq.numSge(slot); s++)
        {
            final TcpMemoryRegion mr = pd.lookup(rq.sgeLkey(slot, s));
            final long sgeLen = Integer.toUnsignedLong(rq.sgeLength(slot, s));
            if (mr == null || !mr.allows(AccessFlags.LOCAL_WRITE) || !mr.contains(rq.sgeAddr(slot, s), sgeLen))
            {
                qp.recvCq().push(wrId, WcStatus.LOC_PROT_ERR.code(), WcOpcode.RECV, 0, qp.qpNum());
                return respond(WcStatus.REM_OP_ERR, Opcode.SEND, 0, 0L);
            }
            capacity += sgeLen;
        }
        if (len > capacity)
        {
            qp.recvCq().push(wrId, WcStatus.LOC_LEN_ERR.code(), WcOpcode.RECV, 0, qp.qpNum());
            return respond(WcStatus.REM_INV_REQ_ERR, Opcode.SEND, 0, 0L);
        }
        long done = 0;
        int s = 0;
        long offset = 0;
        while (done < len)
        {
            if (!rx.hasRemaining())
            {
                flush();
                fill(1);
            }
            while (offset == Integer.toUnsignedLong(rq.sgeLength(slot, s)))
            {
                s++;
                offset = 0;
            }
            final int k = (int)Math.min(rx.remaining(),
                Math.min(len - done, Integer.toUnsignedLong(rq.sgeLength(slot, s)) - offset));
            MemorySegment.copy(rxSegment, rx.position(), ALL_MEMORY, rq.sgeAddr(slot, s) + offset, k);
            rx.position(rx.position() + k);
            offset += k;
            done += k;
        }
        skip(TcpWire.padding(len));
        qp.recvCq().push(wrId, WcStatus.SUCCESS.code(), WcOpcode.RECV, (int)len, qp.qpNum());
        return respond(WcStatus.SUCCESS, Opcode.SEND, 0, 0L);
    }

    /**
     * Receiver not ready: waits as long as the requester would keep retrying (its rnr_retry times our
     * min_rnr_timer; 7 means forever) for the application to post a receive. Caller holds {@code rq}.
     */
    private void waitForReceive(final TcpReceiveQueue rq)
    {
        final ConnectOptions options = qp.options();
        final boolean forever = requesterRnrRetry >= 7;
        final long budget = TimeUnit.MICROSECONDS.toNanos(
            ConnectOptions.minRnrTimerMicros(options.minRnrTimer()) * (requesterRnrRetry + 1L));
        final long deadline = System.nanoTime() + budget;
        while (rq.isEmpty() && qp.state() != QpState.ERR && !qp.isClosed())
        {
            final long left = forever ? 10_000_000L : deadline - System.nanoTime();
            if (left <= 0)
            {
                return;
            }
            try
            {
                TimeUnit.NANOSECONDS.timedWait(rq, left);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void skip(final long len) throws IOException
    {
        long remaining = len;
        while (remaining > 0)
        {
            if (!rx.hasRemaining())
            {
                fill(1);
            }
            final int k = (int)Math.min(remaining, rx.remaining());
            rx.position(rx.position() + k);
            remaining -= k;
        }
    }

    /** Queues a response; returns true when the status is success (the queue pair carries on). */
    private boolean respond(final WcStatus status, final int opcode, final int length, final long value)
        throws IOException
    {
        header(status, opcode, length, value);
        return status == WcStatus.SUCCESS;
    }

    private void header(final WcStatus status, final int opcode, final int length, final long value)
        throws IOException
    {
        if (tx.remaining() < TcpWire.RESP_HEADER_LENGTH)
        {
            flush();
        }
        final int p = tx.position();
        tx.put(p + TcpWire.RESP_STATUS_OFFSET, (byte)status.code());
        tx.put(p + TcpWire.RESP_OPCODE_OFFSET, (byte)opcode);
        tx.putShort(p + 2, (short)0);
        tx.putInt(p + TcpWire.RESP_LENGTH_OFFSET, length);
        tx.putLong(p + TcpWire.RESP_VALUE_OFFSET, value);
        tx.position(p + TcpWire.RESP_HEADER_LENGTH);
    }

    private void flush() throws IOException
    {
        if (tx.position() == 0)
        {
            return;
        }
        tx.flip();
        while (tx.hasRemaining())
        {
            channel.write(tx);
        }
        tx.clear();
    }

    /** Blocks until at least {@code min} bytes are readable. */
    private void fill(final int min) throws IOException
    {
        if (rx.remaining() >= min)
        {
            return;
        }
        rx.compact();
        try
        {
            while (rx.position() < min)
            {
                if (channel.read(rx) < 0)
                {
                    throw new IOException("requester closed the connection");
                }
            }
        }
        finally
        {
            rx.flip();
        }
    }
}
