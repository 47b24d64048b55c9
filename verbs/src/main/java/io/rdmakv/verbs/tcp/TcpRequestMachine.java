package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link TcpResponder}'s requests in arrival order: decodes each header, then steps through the request
 * ({@link #state} and the fields of the request in progress) as its bytes arrive and its response finds
 * room, so a request that arrives in pieces resumes where it stopped. READ, WRITE and atomics go to memory
 * through {@link TcpRemoteAccess}; a SEND lands in a posted receive or waits for one (receiver not ready)
 * on the engine's timer list; a refused request is answered with its error, then the queue pair fails.
 * Engine thread only, under the responder's lock.
 */
final class TcpRequestMachine
{
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

    private final TcpResponder owner;
    private final TcpQueuePair qp;
    private final TcpProtectionDomain pd;
    private final TcpResponderSocket socket;
    private final TcpRemoteAccess access;
    private final int requesterRnrRetry;
    private final TcpReceiveTarget target = new TcpReceiveTarget();
    /** False on a device without remote atomics ({@link TcpContext#ATOMICS_PROPERTY}): every atomic is refused. */
    private final boolean atomics;

    private int state = HEADER;
    private int pad;
    private long sendLength;
    private long skipRemaining;
    private int afterSkip;
    private int afterRespond;
    private long deadline;
    private boolean waitsForever;

    TcpRequestMachine(final TcpResponder owner, final TcpQueuePair qp, final TcpProtectionDomain pd,
        final TcpResponderSocket socket, final int requesterRnrRetry)
    {
        this.owner = owner;
        this.qp = qp;
        this.pd = pd;
        this.socket = socket;
        this.access = new TcpRemoteAccess(qp, pd);
        this.requesterRnrRetry = requesterRnrRetry;
        this.atomics = ((TcpContext)pd.context()).atomics();
    }

    /** Ends the machine: no step is taken again. */
    void stop()
    {
        state = DONE;
    }

    /** Whether it ended (the queue pair failed, closed or retired the responder). */
    boolean done()
    {
        return state == DONE;
    }

    /** True while it waits on the engine's timer list (a receive, or an error response's drain). */
    boolean timed()
    {
        return state == AWAIT_RECEIVE || state == DRAIN_THEN_ERROR;
    }

    /** Nanosecond deadline of a timed wait; {@link Long#MAX_VALUE} when it waits for ever. */
    long deadline()
    {
        return waitsForever ? Long.MAX_VALUE : deadline;
    }

    /** Whether the request in progress expects bytes from the requester (a header, data, padding). */
    boolean wantsInput()
    {
        return state == HEADER || state == WRITE_DATA || state == SEND_DATA || state == SKIP;
    }

    /** Whether it is producing a response (a header, a READ's data) that waits for room in the output. */
    boolean producing()
    {
        return state == READ_DATA || state == RESPOND;
    }

    /** One step of the request in progress (not done); false when it needs input, output room, a receive or time. */
    boolean step(final long now) throws IOException
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

    /** Decodes the next request's header and starts it. */
    private boolean header() throws IOException
    {
        final ByteBuffer rx = socket.rx;
        if (rx.remaining() < TcpWire.REQ_HEADER_LENGTH && !socket.readMore())
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

    private void startRead(final long addr, final int rkey, final long len)
    {
        if (!access.permits(rkey, addr, len, AccessFlags.REMOTE_READ))
        {
            respondWith(WcStatus.REM_ACCESS_ERR, Opcode.RDMA_READ, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        access.start(addr, len);
        pad = TcpWire.padding(len);
        respondWith(WcStatus.SUCCESS, Opcode.RDMA_READ, (int)len, 0L, READ_DATA);
    }

    /** After a READ's response header: its data, then its padding, into the output as room allows. */
    private boolean readData() throws IOException
    {
        if (!socket.hasOutputRoom())
        {
            return false;
        }
        if (access.remaining() > 0)
        {
            access.readInto(socket);
            return true;
        }
        pad -= socket.zeros(pad);
        if (pad == 0)
        {
            state = HEADER;
        }
        return true;
    }

    private void startWrite(final long addr, final int rkey, final long len)
    {
        if (!access.permits(rkey, addr, len, AccessFlags.REMOTE_WRITE))
        {
            respondWith(WcStatus.REM_ACCESS_ERR, Opcode.RDMA_WRITE, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        access.start(addr, len);
        skipRemaining = TcpWire.padding(len);
        afterSkip = AFTER_WRITE;
        state = WRITE_DATA;
    }

    /** A WRITE's data into memory as it arrives, then its padding is skipped. */
    private boolean writeData() throws IOException
    {
        if (access.remaining() > 0)
        {
            if (!socket.hasInput())
            {
                return false;
            }
            access.writeFrom(socket);
            return true;
        }
        state = SKIP;
        return true;
    }

    /**
     * A CAS or fetch-and-add. A device without remote atomics answers it as an RC responder that does not support
     * the opcode does (IB spec: an Invalid Request NAK, which the requester completes with {@code REM_INV_REQ_ERR}
     * and which is not retried), and the queue pair fails; memory is not touched.
     */
    private void atomic(final int opcode, final long addr, final int rkey, final long compareAdd, final long swap)
    {
        if (!atomics || (addr & 7) != 0)
        {
            respondWith(WcStatus.REM_INV_REQ_ERR, opcode, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        if (!access.permits(rkey, addr, 8, AccessFlags.REMOTE_ATOMIC))
        {
            respondWith(WcStatus.REM_ACCESS_ERR, opcode, 0, 0L, DRAIN_THEN_ERROR);
            return;
        }
        respondWith(WcStatus.SUCCESS, opcode, 0, TcpRemoteAccess.atomic(opcode, addr, compareAdd, swap), HEADER);
    }

    /**
     * Receiver not ready: waits as long as the requester would keep retrying (its rnr_retry times our
     * min_rnr_timer; 7 means for ever) for the application to post a receive.
     */
    private void startSend(final long len)
    {
        sendLength = len;
        waitsForever = requesterRnrRetry >= 7;
        deadline = System.nanoTime() + TcpReceiveTarget.rnrBudgetNanos(qp.options(), requesterRnrRetry);
        state = AWAIT_RECEIVE;
        owner.addTimed();
    }

    private boolean awaitReceive(final long now)
    {
        if (qp.state() == QpState.ERR || qp.isClosed())
        {
            owner.finish();
            return false;
        }
        final int status = target.take(qp.receiveQueue(), pd, sendLength);
        if (status == TcpReceiveTarget.NONE)
        {
            if (waitsForever || now - deadline < 0)
            {
                return false;
            }
            // An RNR NAK fails the requester's queue pair; this one stays usable, as on a NIC.
            skipRemaining = sendLength + TcpWire.padding(sendLength);
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
        skipRemaining = TcpWire.padding(sendLength);
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
        if (!socket.hasInput())
        {
            return false;
        }
        final ByteBuffer rx = socket.rx;
        final int k = target.land(socket.rxSegment, rx.position(), rx.remaining());
        rx.position(rx.position() + k);
        return true;
    }

    private boolean skip() throws IOException
    {
        if (skipRemaining > 0)
        {
            if (!socket.hasInput())
            {
                return false;
            }
            skipRemaining -= socket.skip(skipRemaining);
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
        socket.queueResponse(status.code(), opcode, length, value);
        afterRespond = next;
        state = RESPOND;
    }

    private boolean respond() throws IOException
    {
        if (!socket.putQueuedResponse())
        {
            return false;
        }
        state = afterRespond;
        if (state == DRAIN_THEN_ERROR)
        {
            deadline = System.nanoTime() + ERROR_DRAIN_NANOS;
            waitsForever = false;
            owner.addTimed();
        }
        return true;
    }

    /** After an error response: sends what is queued (for a bounded time), then moves the queue pair to ERR. */
    private boolean drainThenError(final long now) throws IOException
    {
        socket.flush();
        if (socket.outputPending() && now - deadline < 0 && !qp.isClosed())
        {
            return false;
        }
        owner.finish();
        qp.enterError();
        return false;
    }
}
