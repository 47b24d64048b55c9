package io.rdmakv.client.internal;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.MessageHeaderDescriptor;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * The TCP connection a session starts with: one HELLO and its reply, framed by the control-message
 * header's length. It then stays open for the session's lifetime and carries the session's lease: the
 * client's janitor sends a HEARTBEAT on it every interval the node asked for ({@link #send}); the node
 * takes its closing as the client's departure and a silence as long as its lease timeout as a client
 * frozen or cut off. The data path never uses it.
 */
final class BootstrapConnection implements AutoCloseable
{
    private final Socket socket;

    private BootstrapConnection(final Socket socket)
    {
        this.socket = socket;
    }

    static BootstrapConnection open(final InetSocketAddress address, final long timeoutNanos) throws IOException
    {
        final Socket socket = new Socket();
        try
        {
            final int timeoutMs = (int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
            socket.connect(address, timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            return new BootstrapConnection(socket);
        }
        catch (final IOException e)
        {
            socket.close();
            throw e;
        }
    }

    /** Sends {@code request} and reads one reply. */
    ControlMessage call(final ControlMessage request) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write(ControlCodec.toBytes(request));
        out.flush();
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final byte[] header = new byte[MessageHeaderDescriptor.HEADER_LENGTH];
        in.readFully(header);
        final int length = ControlCodec.checkHeader(MemorySegment.ofArray(header), 0, header.length);
        final byte[] message = new byte[length];
        System.arraycopy(header, 0, message, 0, header.length);
        in.readFully(message, header.length, length - header.length);
        return ControlCodec.fromBytes(message);
    }

    /**
     * Sends {@code message} without waiting for anything back (HEARTBEAT). Safe from any thread, also while
     * the connection is being closed (then it throws).
     */
    synchronized void send(final ControlMessage message) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write(ControlCodec.toBytes(message));
        out.flush();
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
