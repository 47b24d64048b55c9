package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.ReasonCode;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * What the bootstrap listener reads and writes before a session exists, each read bounded by the
 * connection's one deadline: its first byte (TLS or not), its HELLO, a refusal, and the drain after one.
 */
final class DeadlineReads
{
    private DeadlineReads()
    {
    }

    static int readFirstByte(final Socket socket, final long deadline) throws IOException
    {
        final byte[] first = new byte[1];
        readFully(socket, first, 0, 1, deadline);
        return first[0] & 0xFF;
    }

    /**
     * After a refusal: says it is done sending and reads what the peer still sends until it closes (or the
     * deadline, or 64 KiB), so that closing does not reset the connection before the peer has read the reason.
     */
    static void drain(final Socket socket, final long deadline)
    {
        try
        {
            socket.shutdownOutput();
            final byte[] sink = new byte[4096];
            int left = 64 << 10;
            while (left > 0)
            {
                final long wait = deadline - System.nanoTime();
                if (wait <= 0)
                {
                    return;
                }
                socket.setSoTimeout((int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
                final int n = socket.getInputStream().read(sink);
                if (n < 0)
                {
                    return;
                }
                left -= n;
            }
        }
        catch (final IOException e)
        {
            // the peer is gone: nothing more to wait for
        }
    }

    /**
     * Reads one control message, all of it by {@code deadline} ({@link System#nanoTime()}); {@code firstByte}
     * is its first byte when already read, else -1.
     */
    static ControlMessage readHello(final Socket socket, final long deadline, final int firstByte)
        throws IOException
    {
        final byte[] header = new byte[MessageHeaderDescriptor.HEADER_LENGTH];
        final int have = firstByte < 0 ? 0 : 1;
        header[0] = (byte)firstByte;
        readFully(socket, header, have, header.length - have, deadline);
        final int length = ControlCodec.checkHeader(MemorySegment.ofArray(header), 0, header.length);
        if (length > MessageHeaderDescriptor.MAX_BOOTSTRAP_MESSAGE_LENGTH)
        {
            throw new MalformedMessageException(MalformedMessageException.Kind.BAD_LENGTH,
                "bootstrap message of " + length + " bytes");
        }
        final byte[] message = new byte[length];
        System.arraycopy(header, 0, message, 0, header.length);
        readFully(socket, message, header.length, length - header.length, deadline);
        return ControlCodec.fromBytes(message);
    }

    /** Each read waits only as long as is left until {@code deadline}: the deadline bounds the whole read. */
    static void readFully(final Socket socket, final byte[] dst, final int offset, final int length,
        final long deadline) throws IOException
    {
        final InputStream in = socket.getInputStream();
        int done = 0;
        while (done < length)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                throw new SocketTimeoutException("HELLO deadline passed");
            }
            socket.setSoTimeout((int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            final int n = in.read(dst, offset + done, length - done);
            if (n < 0)
            {
                throw new EOFException("connection closed before the whole HELLO");
            }
            done += n;
        }
    }

    static void refuse(final Socket socket, final ReasonCode code, final String text) throws IOException
    {
        socket.getOutputStream().write(ControlCodec.toBytes(CodedRefusalMessage.helloRefused(0, code.code(), text)));
        socket.getOutputStream().flush();
    }
}
