package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
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
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

import static io.rdmakv.verbs.tcp.TcpWire.ALL_MEMORY;

/**
 * The responder half of a {@code tcp} queue pair: the software NIC's per-connection state, served by the
 * device's {@link TcpEngineLoop engine} thread, never the application's. Executes READ, WRITE, atomics and
 * SEND against the protection domain's registered memory in arrival order, enforcing keys, bounds, access
 * flags and alignment as a NIC does ({@link #region}).
 *
 * <p>It never blocks its engine: reads and writes are non-blocking, a request that arrives in pieces
 * resumes where it stopped ({@link #state} and the fields of the request in progress), responses collect
 * in a bounded output buffer and go out when the input runs dry or the buffer fills. A peer that does not
 * read its responses fills that buffer, and then is not read from (backpressure) while every other
 * connection keeps being served. A SEND that finds no posted receive waits (receiver not ready) with its
 * deadline on the engine's timer list, woken by the next {@code postReceive}.
 *
 * <p>All of it runs under this object's lock, which {@link #retire} also takes: once a closing queue pair
 * has retired its responder, the engine never touches the queue pair's memory again.
 */
final class TcpResponder
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private static final int HEADER = 0;
    private static final int READ_DATA = 1;
    private static final int WRITE_DATA = 2;
    private static final int AWAIT_RECEIVE = 3;
    private static final int SEND_DATA = 4;
    private static final int SKIP = 5;
    private static final int RESPOND = 6;
    private static final int DRAIN_THEN_ERROR = 7;
    private static final int DONE = 8;

    /** What follows a {@link #SKIP}: a WRITE's or a SEND's success, or an RNR error that keeps the queue pair. */
    private static final int AFTER_WRITE = 0;
    private static final int AFTER_SEND = 1;
    private static final int AFTER_RNR = 2;

    /** How long an error response may take to leave before the queue pair fails anyway (a peer that does not read). */
    private static final long ERROR_DRAIN_NANOS = 1_000_000_000L;

    /** Socket reads one {@link #serve} may do, so that a peer that streams cannot keep the engine to itself. */
    private static final int READS_PER_SERVE = 8;

    private final TcpQueuePair qp;
    private final TcpProtectionDomain pd;
    private final SocketChannel channel;
    private final int requesterRnrRetry;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(TcpWire.RESPONDER_BUFFER_LENGTH)
        .order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer tx = ByteBuffer.allocateDirect(TcpWire.RESPONDER_BUFFER_LENGTH)
        .order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rx);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(tx);
    private final TcpReceiveTarget target = new TcpReceiveTarget();
    private volatile TcpEngineLoop loop;
    private SelectionKey key;
    private boolean retired;

    private int state = HEADER;
    private long address;
    private long remaining;
    private int pad;
    private long skipRemaining;
    private int afterSkip;
    private int respondStatus;
    private int respondOpcode;
    private int respondLength;
    private long respondValue;
    private int afterRespond;
    private long deadline;
    private boolean waitsForever;
    private int readsLeft;

    TcpResponder(final TcpQueuePair qp, final TcpProtectionDomain pd, final SocketChannel channel,
        final int requesterRnrRetry)
    {
        this.qp = qp;
        this.pd = pd;
        this.channel = channel;
        this.requesterRnrRetry = requesterRnrRetry;
        rx.flip();
    }

    /** Called once, on the engine thread: the connection joins the engine's selector. */
    synchronized void attach(final TcpEngineLoop engine) throws IOException
    {
        loop = engine;
        if (retired)
        {
            return;
        }
        channel.configureBlocking(false);
        key = channel.register(engine.selector(), SelectionKey.OP_READ, this);
    }

    /** The queue pair closed: the engine lets go of this connection (and never touches its memory again). */
    synchronized void retire()
    {
        retired = true;
        state = DONE;
        if (key != null)
        {
            key.cancel();
        }
    }

    /** A receive was posted or the queue pair changed state: a SEND waiting for a receive looks again. */
    void wake()
    {
        final TcpEngineLoop engine = loop;
        if (engine != null)
        {
            engine.wake();
        }
    }

    /** True while this connection waits on the engine's timer list (a receive, or an error response's drain). */
    synchronized boolean timed()
    {
        return state == AWAIT_RECEIVE || state == DRAIN_THEN_ERROR;
    }

    /** Nanosecond deadline of a timed wait; {@link Long#MAX_VALUE} when it waits for ever. */
    synchronized long deadline()
    {
        return waitsForever ? Long.MAX_VALUE : deadline;
    }

    /**
     * Does all the work the connection allows now: executes the requests that arrived, sends what fits,
     * and sets the selector interest (read while there is room for responses, write while some wait).
     * Returns the number of steps taken (0: nothing to do). Never blocks.
     */
    synchronized int serve(final long now)
    {
        if (state == DONE || retired)
        {
            return 0;
        }
        int work = 0;
        readsLeft = READS_PER_SERVE;
        try
        {
            while (state != DONE && step(now))
            {
                work++;
            }
            if (state != DONE)
            {
                flush();
                interest();
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // The requester went away or the queue pair was closed under us: a NIC would time out.
           
            finish();
            qp.peerGone();
        }
        return work;
    }

    /** One step of the request in progress; false when it needs input, output room, a receive or time. */
    private boolean step(final long now) throws IOException
    {
        return switch (state)
        {
            case HEADER -> header();
            case READ_DATA -> readData();
            case WRITE_DATA -> writeData();
            case AWAIT_RECEIVE -> awaitReceive(now);
            case SEND_DATA -> sendData();
            case SKIP -> skip();
            case RESPOND -> respond();
            case DRAIN_THEN_ERROR -> drainThenError(now);
            default -> false;
        };
    }

    private boolean header() throws IOException
    {
        if (rx.remaining() < TcpWire.REQ_HEADER_LENGTH && !readMore())
        {
            return false;
        }
        if (rx.remaining() < TcpWire.REQ_HEADER_LENGTH)
        {
            return true;
        }
        final int p = rx.position();
        final int opcode = rx.get(p + TcpWire.REQ_OPCODE_OFFSET) & 0xff;
        final long len = Integer.toUnsignedLong(rx.getInt(p + TcpWire.REQ_LENGTH_OFFSET));
        final long addr = rx.getLong(p + TcpWire.REQ_REMOTE_ADDR_OFFSET);
        final int rkey = rx.getInt(p + TcpWire.REQ_RKEY_OFFSET);
        final long compareAdd = rx.getLong(p + TcpWire.REQ_COMPARE_ADD_OFFSET);
        final long swap = rx.getLong(p + TcpWire.REQ_SWAP_OFFSET);
        rx.position(p + TcpWire.REQ_HEADER_LENGTH);
        switch (opcode)
        {
            case Opcode.RDMA_READ -> startRead(addr, rkey, len);
            case Opcode.RDMA_WRITE -> startWrite(addr, rkey, len);
            case Opcode.SEND -> startSend(len);
            case Opcode.ATOMIC_CMP_AND_SWP, Opcode.ATOMIC_FETCH_AND_ADD -> atomic(opcode, addr, rkey, compareAdd, swap);
            default -> respondWith(WcStatus.REM_INV_REQ_ERR, opcode, 0, 0L, DRAIN_THEN_ERROR);
        }
        return true;
    }

    /** Whether this queue pair and the key (a region's, or a window's bound to this queue pair) allow the access. */
    private boolean permits(final int rkey, final long addr, final long len, final int access)
    {
        return qp.allowsRemote(access) && pd.permits(qp, rkey, addr, len, access);
    }

    private void startRead(final long addr, final int rkey, final long len)
    {
        if (!permits(rkey, addr, len, AccessFlags.REMOTE_READ))
        {
            respondWith(WcStatus.REM_ACCESS_ERR, Opcode.RDMA_READ, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        address = addr;
        remaining = len;
        pad = TcpWire.padding(len);
        respondWith(WcStatus.SUCCESS, Opcode.RDMA_READ, (int)len, 0L, READ_DATA);
    }

    private boolean readData() throws IOException
    {
        if (!tx.hasRemaining() && !flush())
        {
            return false;
        }
        if (remaining > 0)
        {
            final int k = (int)Math.min(remaining, tx.remaining());
            MemorySegment.copy(ALL_MEMORY, address, txSegment, tx.position(), k);
            tx.position(tx.position() + k);
            address += k;
            remaining -= k;
            return true;
        }
        while (pad > 0 && tx.hasRemaining())
        {
            tx.put((byte)0);
            pad--;
        }
        if (pad == 0)
        {
            state = HEADER;
        }
        return true;
    }

    private void startWrite(final long addr, final int rkey, final long len)
    {
        if (!permits(rkey, addr, len, AccessFlags.REMOTE_WRITE))
        {
            respondWith(WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        address = addr;
        remaining = len;
        skipRemaining = TcpWire.padding(len);
        afterSkip = AFTER_WRITE;
        state = WRITE_DATA;
    }

    private boolean writeData() throws IOException
    {
        if (remaining > 0)
        {
            if (!rx.hasRemaining() && !readMore())
            {
                return false;
            }
            final int k = (int)Math.min(remaining, rx.remaining());
            MemorySegment.copy(rxSegment, rx.position(), ALL_MEMORY, address, k);
            rx.position(rx.position() + k);
            address += k;
            remaining -= k;
            return true;
        }
        state = SKIP;
        return true;
    }

    private void atomic(final int opcode, final long addr, final int rkey, final long compareAdd, final long swap)
    {
        if ((addr & 7) != 0)
        {
            respondWith(WcStatus.REM_INV_REQ_ERR, opcode, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        if (!permits(rkey, addr, 8, AccessFlags.REMOTE_ATOMIC))
        {
            respondWith(WcStatus.REM_ACCESS_ERR, opcode, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        final long original = opcode == Opcode.ATOMIC_CMP_AND_SWP ?
            (long)LONG.compareAndExchange(ALL_MEMORY, addr, compareAdd, swap) :
            (long)LONG.getAndAdd(ALL_MEMORY, addr, compareAdd);
        respondWith(WcStatus.SUCCESS, opcode, 0, original, HEADER);
    }

    /**
     * Receiver not ready: waits as long as the requester would keep retrying (its rnr_retry times our
     * min_rnr_timer; 7 means for ever) for the application to post a receive.
     */
    private void startSend(final long len)
    {
        remaining = len;
        waitsForever = requesterRnrRetry >= 7;
        deadline = System.nanoTime() + TcpReceiveTarget.rnrBudgetNanos(qp.options(), requesterRnrRetry);
        state = AWAIT_RECEIVE;
        loop.addTimed(this);
    }

    private boolean awaitReceive(final long now)
    {
        if (qp.state() == QpState.ERR || qp.isClosed())
        {
            finish();
            return false;
        }
        final int status = target.take(qp.receiveQueue(), pd, remaining);
        if (status == TcpReceiveTarget.NONE)
        {
            if (waitsForever || now - deadline < 0)
            {
                return false;
            }
            // An RNR NAK fails the requester's queue pair; this one stays usable, as on a NIC.
            skipRemaining = remaining + TcpWire.padding(remaining);
            afterSkip = AFTER_RNR;
            state = SKIP;
            return true;
        }
        if (status != WcStatus.SUCCESS.code())
        {
            qp.recvCq().push(target.wrId(), status, WcOpcode.RECV, 0, qp.qpNum());
            respondWith(status == WcStatus.LOC_LEN_ERR.code() ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR,
                Opcode.SEND, 0, 0L, DRAIN_THEN_ERROR);
            return true;
        }
        skipRemaining = TcpWire.padding(remaining);
        afterSkip = AFTER_SEND;
        state = SEND_DATA;
        return true;
    }

    private boolean sendData() throws IOException
    {
        if (target.remaining() == 0)
        {
            state = SKIP;
            return true;
        }
        if (!rx.hasRemaining() && !readMore())
        {
            return false;
        }
        final int k = target.land(rxSegment, rx.position(), rx.remaining());
        rx.position(rx.position() + k);
        return true;
    }

    private boolean skip() throws IOException
    {
        if (skipRemaining > 0)
        {
            if (!rx.hasRemaining() && !readMore())
            {
                return false;
            }
            final int k = (int)Math.min(skipRemaining, rx.remaining());
            rx.position(rx.position() + k);
            skipRemaining -= k;
            return true;
        }
        switch (afterSkip)
        {
            case AFTER_WRITE -> respondWith(WcStatus.SUCCESS, Opcode.RDMA_WRITE, 0, 0L, HEADER);
            case AFTER_SEND ->
            {
                qp.recvCq().push(target.wrId(), WcStatus.SUCCESS.code(), WcOpcode.RECV, (int)target.length(),
                    qp.qpNum());
                respondWith(WcStatus.SUCCESS, Opcode.SEND, 0, 0L, HEADER);
            }
            default -> respondWith(WcStatus.RNR_RETRY_EXC_ERR, Opcode.SEND, 0, 0L, HEADER);
        }
        return true;
    }

    /** Queues a response: the next step writes its header when the output buffer has room, then goes on. */
    private void respondWith(final WcStatus status, final int opcode, final int length, final long value,
        final int next)
    {
        respondStatus = status.code();
        respondOpcode = opcode;
        respondLength = length;
        respondValue = value;
        afterRespond = next;
        state = RESPOND;
    }

    private boolean respond() throws IOException
    {
        if (tx.remaining() < TcpWire.RESP_HEADER_LENGTH && !flush())
        {
            return false;
        }
        final int p = tx.position();
        tx.put(p + TcpWire.RESP_STATUS_OFFSET, (byte)respondStatus);
        tx.put(p + TcpWire.RESP_OPCODE_OFFSET, (byte)respondOpcode);
        tx.putShort(p + 2, (short)0);
        tx.putInt(p + TcpWire.RESP_LENGTH_OFFSET, respondLength);
        tx.putLong(p + TcpWire.RESP_VALUE_OFFSET, respondValue);
        tx.position(p + TcpWire.RESP_HEADER_LENGTH);
        state = afterRespond;
        if (state == DRAIN_THEN_ERROR)
        {
            deadline = System.nanoTime() + ERROR_DRAIN_NANOS;
            waitsForever = false;
            loop.addTimed(this);
        }
        return true;
    }

    /** After an error response: sends what is queued (for a bounded time), then moves the queue pair to ERR. */
    private boolean drainThenError(final long now) throws IOException
    {
        flush();
        if (tx.position() != 0 && now - deadline < 0 && !qp.isClosed())
        {
            return false;
        }
        finish();
        qp.enterError();
        return false;
    }

    private void finish()
    {
        state = DONE;
        if (key != null)
        {
            key.cancel();
        }
    }

    /** Reads what the socket has (bounded per serve); false when nothing came. Throws when the peer closed. */
    private boolean readMore() throws IOException
    {
        if (readsLeft == 0 || rx.remaining() == rx.capacity())
        {
            return false;
        }
        readsLeft--;
        rx.compact();
        final int got;
        try
        {
            got = channel.read(rx);
        }
        finally
        {
            rx.flip();
        }
        if (got < 0)
        {
            flush();
            throw new IOException("requester closed the connection");
        }
        return got > 0;
    }

    /** Writes what the socket takes; true when the output buffer is empty afterwards. */
    private boolean flush() throws IOException
    {
        if (tx.position() == 0)
        {
            return true;
        }
        tx.flip();
        try
        {
            channel.write(tx);
        }
        finally
        {
            tx.compact();
        }
        return tx.position() == 0;
    }

    /**
     * Read while responses have somewhere to go; write while some wait, or while a response is being
     * produced (a READ's data, a header) that the output had no room for: the socket's next "writable"
     * resumes it. Waiting for a receive: neither (the timer list and postReceive's wake-up resume it).
     */
    private void interest() throws IOException
    {
        final boolean pending = tx.position() != 0;
        final boolean wantsInput = state == HEADER || state == WRITE_DATA || state == SEND_DATA || state == SKIP;
        final boolean producing = state == READ_DATA || state == RESPOND;
        final int ops = (wantsInput && !pending ? SelectionKey.OP_READ : 0) |
            (pending || producing ? SelectionKey.OP_WRITE : 0);
        if (key.interestOps() != ops)
        {
            key.interestOps(ops);
        }
    }
}
