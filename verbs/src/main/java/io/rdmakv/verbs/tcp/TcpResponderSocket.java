package io.rdmakv.verbs.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A {@link TcpResponder}'s side of its connection: the non-blocking socket, the input buffer requests are
 * decoded from, the bounded output buffer responses collect in, and the response header waiting for room
 * there. Input is read a bounded number of
 * times per serve ({@link #READS_PER_SERVE}), so that a peer that streams cannot keep the engine to itself;
 * output goes out when the input runs dry or the buffer fills ({@link #flush}). Engine thread only, under
 * the responder's lock.
 */
final class TcpResponderSocket
{
    /** Socket reads one serve may do, so that a peer that streams cannot keep the engine to itself. */
    static final int READS_PER_SERVE = 8;

    private final SocketChannel channel;
    /** Requests as they arrive (in read mode: position..limit is what is not yet consumed). */
    final ByteBuffer rx = ByteBuffer.allocateDirect(TcpWire.RESPONDER_BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    /** Responses waiting to go out (in write mode: 0..position is what is queued). */
    final ByteBuffer tx = ByteBuffer.allocateDirect(TcpWire.RESPONDER_BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    final MemorySegment rxSegment = MemorySegment.ofBuffer(rx);
    final MemorySegment txSegment = MemorySegment.ofBuffer(tx);
    private int readsLeft;
    private int respondStatus;
    private int respondOpcode;
    private int respondLength;
    private long respondValue;

    TcpResponderSocket(final SocketChannel channel)
    {
        this.channel = channel;
        rx.flip();
    }

    /** Makes the socket non-blocking and registers it with {@code selector} for reading. */
    SelectionKey register(final Selector selector, final Object attachment) throws IOException
    {
        channel.configureBlocking(false);
        return channel.register(selector, SelectionKey.OP_READ, attachment);
    }

    /** A new serve begins: the socket may be read {@link #READS_PER_SERVE} times again. */
    void beginServe()
    {
        readsLeft = READS_PER_SERVE;
    }

    /** Whether some input is buffered, reading the socket if none is. Throws when the peer closed. */
    boolean hasInput() throws IOException
    {
        return rx.hasRemaining() || readMore();
    }

    /** Whether the output buffer has room for a byte, flushing it if it has none. */
    boolean hasOutputRoom() throws IOException
    {
        return tx.hasRemaining() || flush();
    }

    /** Whether responses wait in the output buffer. */
    boolean outputPending()
    {
        return tx.position() != 0;
    }

    /** Consumes up to {@code n} buffered input bytes; returns how many it consumed. */
    int skip(final long n)
    {
        final int k = (int)Math.min(n, rx.remaining());
        rx.position(rx.position() + k);
        return k;
    }

    /** Appends up to {@code n} zero bytes to the output, as many as fit; returns how many it appended. */
    int zeros(final int n)
    {
        int k = 0;
        while (k < n && tx.hasRemaining())
        {
            tx.put((byte)0);
            k++;
        }
        return k;
    }

    /** Holds a response header until {@link #putQueuedResponse} finds room for it. */
    void queueResponse(final int status, final int opcode, final int length, final long value)
    {
        respondStatus = status;
        respondOpcode = opcode;
        respondLength = length;
        respondValue = value;
    }

    /**
     * Appends the queued response header when the output has room for one (flushing first if it has not);
     * false when it still has none.
     */
    boolean putQueuedResponse() throws IOException
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
        return true;
    }

    /**
     * Reads what the socket has (bounded per serve); false when nothing came. Throws when the peer closed.
     * A read that left room in the buffer drained the socket: no further read in this serve (it would find
     * nothing, one system call per request for naught); epoll, level-triggered, reports what comes next.
     */
    boolean readMore() throws IOException
    {
        if (readsLeft == 0 || rx.remaining() == rx.capacity())
        {
            return false;
        }
        readsLeft--;
        rx.compact();
        final int room = rx.remaining();
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
        if (got < room)
        {
            readsLeft = 0;
        }
        return got > 0;
    }

    /** Writes what the socket takes; true when the output buffer is empty afterwards. */
    boolean flush() throws IOException
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
     * Read while responses have somewhere to go ({@code wantsInput} and none wait); write while some wait,
     * or while a response is being produced that the output had no room for ({@code producing}): the
     * socket's next "writable" resumes it. Neither: the timer list and the wake-ups resume it.
     */
    void interest(final SelectionKey key, final boolean wantsInput, final boolean producing)
    {
        final boolean pending = outputPending();
        final int ops = (wantsInput && !pending ? SelectionKey.OP_READ : 0) |
            (pending || producing ? SelectionKey.OP_WRITE : 0);
        if (key.interestOps() != ops)
        {
            key.interestOps(ops);
        }
    }
}
