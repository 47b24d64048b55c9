package io.rdmakv.peer;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;

import io.rdmakv.common.tls.TlsContexts;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * The TCP connection a session starts with (TLS 1.3 when the client is configured for it): one HELLO and its reply, framed by the control-message
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

    /**
     * Connects to {@code address}; with {@code tls} (null: plaintext) runs the TLS 1.3 handshake on it,
     * checking that the node's certificate chains to the trusted CAs and names the host dialled. Each read
     * waits at most {@code timeoutNanos}.
     */
    static BootstrapConnection open(final InetSocketAddress address, final long timeoutNanos, final SSLContext tls)
        throws IOException
    {
        final Socket plain = new Socket();
        Socket socket = plain;
        try
        {
            final int timeoutMs = (int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
            plain.connect(address, timeoutMs);
            plain.setSoTimeout(timeoutMs);
            plain.setTcpNoDelay(true);
            if (tls != null)
            {
                final SSLSocket secured = (SSLSocket)tls.getSocketFactory().createSocket(plain,
                    address.getHostString(), address.getPort(), true);
                socket = secured;
                final SSLParameters parameters = TlsContexts.parameters(tls, false);
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                secured.setSSLParameters(parameters);
                secured.startHandshake();
            }
            return new BootstrapConnection(socket);
        }
        catch (final IOException e)
        {
            socket.close();
            plain.close();
            throw e;
        }
    }

    /** Whether this connection runs TLS. */
    boolean secured()
    {
        return socket instanceof SSLSocket;
    }

    /** Sends {@code request} and reads one reply. */
    ControlMessage call(final ControlMessage request) throws IOException
    {
        final OutputStream out = socket.getOutputStream();
        out.write(ControlCodec.toBytes(request));
        out.flush();
        return ControlCodec.read(socket.getInputStream());
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

    /** What the reader of the node's answers is told: a HEARTBEAT's count and the epoch the node has applied. */
    @FunctionalInterface
    interface Answers
    {
        void answered(long heartbeat, long nodeEpoch);
    }

    /**
     * Reads what the node sends back after HELLO_OK on a virtual thread of its own, until the connection ends:
     * each HEARTBEAT answered goes to {@code answered} (its count and the node's applied epoch). Anything else
     * ends the reading; so does {@link #close}. When the connection ends (the node closed it: it ended the session,
     * or it is gone; or {@link #close} did), {@code ended} runs on that thread.
     */
    void readAnswers(final Answers answered, final Runnable ended, final String name)
    {
        Thread.ofVirtual().name(name).start(() ->
        {
            try
            {
                socket.setSoTimeout(0);
                final java.io.InputStream in = socket.getInputStream();
                while (true)
                {
                    if (!(ControlCodec.read(in) instanceof io.rdmakv.common.protocol.HeartbeatMessage heartbeat))
                    {
                        return;
                    }
                    answered.answered(heartbeat.requestId(), heartbeat.epoch());
                }
            }
            catch (final IOException e)
            {
                // the connection ended (closed, or the node fenced the session): no more answers
                ended.run();
            }
            catch (final RuntimeException e)
            {
                // a malformed frame: no more answers (the node ends the session for less)
            }
        });
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
