package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.SendWorkRequest;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

import static io.rdmakv.verbs.tcp.TcpWire.ALL_MEMORY;

/**
 * The posting half of a {@code tcp} send queue's wire: request frames (header, then a WRITE's or SEND's
 * payload, padded) gathered in one transmit buffer and written to the outbound connection when it is
 * full or the chain is posted. Used under the send queue's lock.
 */
final class TcpRequestEncoder
{
    private final ByteBuffer tx = ByteBuffer.allocateDirect(TcpWire.BUFFER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(tx);
    private SocketChannel channel;

    void connected(final SocketChannel channel)
    {
        this.channel = channel;
    }

    /** True when frames wait in the transmit buffer. */
    boolean hasPending()
    {
        return tx.position() > 0;
    }

    /** Drops what waits in the transmit buffer (the connection is unusable). */
    void discard()
    {
        tx.clear();
    }

    /** Appends the request frame (and payload) to the transmit buffer; false when the connection broke. */
    boolean encode(final SendWorkRequest wr, final int op, final int numSge, final int total,
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
    boolean flush()
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
}
