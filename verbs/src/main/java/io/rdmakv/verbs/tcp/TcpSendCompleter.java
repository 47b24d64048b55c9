package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QpState;
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
 * The answering half of a {@code tcp} send queue: reads the responses, in order, from the outbound
 * connection on the polling thread, lands READ data and atomic results where the slot says, and turns
 * the slots into completions. Used under the send queue's lock.
 */
final class TcpSendCompleter
{
    private final TcpQueuePair qp;
    private final TcpSendSlots slots;
    private final ByteBuffer rx = ByteBuffer.allocateDirect(TcpWire.BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rx);
    private SocketChannel channel;

    private boolean responseHeaderRead;
    private int responseStatus;
    private int responseLength;
    private long responseValue;
    private int payloadDone;
    /** Whether this poll may read the socket (false: complete from bytes already read, no system call). */
    private boolean readSocket;

    TcpSendCompleter(final TcpQueuePair qp, final TcpSendSlots slots)
    {
        this.qp = qp;
        this.slots = slots;
        rx.flip();
    }

    void connected(final SocketChannel channel)
    {
        this.channel = channel;
    }

    /**
     * Completes what the responses on the socket allow, writing completions from index {@code n}.
     * Returns the new count. Unsignaled successes produce no completion; errors and flushes always do.
     * With {@code readSocket} false, only bytes already read are used (a queue pair in ERR still reads, so
     * that responses which arrived complete rather than flush).
     */
    int poll(final WorkCompletions completions, final int start, final boolean readSocket)
    {
        this.readSocket = readSocket || qp.state() == QpState.ERR;
        int n = start;
        final int max = completions.capacity();
        final int qpNum = qp.qpNum();
        final int capacity = slots.capacity;
        final int maxSge = slots.maxSge;
        while (slots.tail != slots.head && n < max)
        {
            final int slot = (int)(slots.tail % capacity);
            final int wcOpcode = WcOpcode.ofSendOpcode(slots.opcode[slot]);
            // Executed when posted, before the queue pair failed: it completes as it ran, even in ERR.
            if (slots.preset[slot] == TcpSendSlots.DONE_LOCALLY)
            {
                if (slots.signaled[slot])
                {
                    completions.at(n++).fill(slots.wrId[slot], 0, wcOpcode, 0, qpNum);
                }
                slots.tail = slots.tail + 1;
                continue;
            }
            if (qp.state() == QpState.ERR && !responseHeaderRead &&
                (slots.preset[slot] != TcpSendSlots.NOT_PRESET || fill(TcpWire.RESP_HEADER_LENGTH) <= 0))
            {
                // In ERR, responses that already arrived still complete (as they did on the wire); the rest flush.
                completions.at(n++).fill(slots.wrId[slot], WcStatus.WR_FLUSH_ERR.code(), wcOpcode, 0, qpNum);
                slots.tail = slots.tail + 1;
                continue;
            }
            if (slots.preset[slot] != TcpSendSlots.NOT_PRESET)
            {
                completions.at(n++).fill(slots.wrId[slot], slots.preset[slot], wcOpcode, 0, qpNum);
                slots.tail = slots.tail + 1;
                qp.enterError();
                continue;
            }
            if (!responseHeaderRead)
            {
                final int got = fill(TcpWire.RESP_HEADER_LENGTH);
                if (got < 0)
                {
                    completions.at(n++).fill(slots.wrId[slot], WcStatus.RETRY_EXC_ERR.code(), wcOpcode, 0, qpNum);
                    slots.tail = slots.tail + 1;
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
                completions.at(n++).fill(slots.wrId[slot], responseStatus, wcOpcode, 0, qpNum);
                slots.tail = slots.tail + 1;
                qp.enterError();
                continue;
            }
            if (slots.opcode[slot] == Opcode.RDMA_READ)
            {
                final int got = receivePayload(slot);
                if (got < 0)
                {
                    responseHeaderRead = false;
                    completions.at(n++).fill(slots.wrId[slot], WcStatus.RETRY_EXC_ERR.code(), wcOpcode, 0, qpNum);
                    slots.tail = slots.tail + 1;
                    qp.enterError();
                    continue;
                }
                if (payloadDone < responseLength + TcpWire.padding(responseLength))
                {
                    break;
                }
            }
            else if (slots.destCount[slot] == 1)
            {
                ALL_MEMORY.set(JAVA_LONG_UNALIGNED, slots.destAddr[slot * maxSge], responseValue);
            }
            responseHeaderRead = false;
            if (slots.signaled[slot])
            {
                completions.at(n++).fill(slots.wrId[slot], 0, wcOpcode, slots.byteLen[slot], qpNum);
            }
            slots.tail = slots.tail + 1;
        }
        if (slots.tail == slots.head)
        {
            qp.sendsSettled();
        }
        return n;
    }

    /** Moves available READ data into the slot's scatter list. Returns -1 when the connection broke. */
    private int receivePayload(final int slot)
    {
        final int maxSge = slots.maxSge;
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
            while (offset >= slots.destLength[slot * maxSge + s])
            {
                offset -= slots.destLength[slot * maxSge + s];
                s++;
            }
            final int k = Math.min(rx.remaining(), Math.min(responseLength - payloadDone,
                slots.destLength[slot * maxSge + s] - offset));
            MemorySegment.copy(rxSegment, rx.position(), ALL_MEMORY, slots.destAddr[slot * maxSge + s] + offset, k);
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
        if (!readSocket)
        {
            return 0;
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
