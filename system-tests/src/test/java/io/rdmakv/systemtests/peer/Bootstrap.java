package io.rdmakv.systemtests.peer;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.systemtests.LocalCluster;

import io.rdmakv.common.tls.TlsContexts;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A raw TCP connection to a node's bootstrap port, framed like the client's: write any bytes, read
 * one control message (header, then the length it gives).
 */
public final class Bootstrap implements AutoCloseable
{
    private static final int TIMEOUT_MS = 5_000;

    private final Socket socket;

    public Bootstrap(final int port)
    {
        this(port, null);
    }

    /** As above, over TLS 1.3 with {@code tls} (null: plaintext), the node's name checked as clients do. */
    public Bootstrap(final int port, final SSLContext tls)
    {
        final Socket plain = new Socket();
        try
        {
            plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT_MS);
            plain.setSoTimeout(TIMEOUT_MS);
            plain.setTcpNoDelay(true);
            if (tls == null)
            {
                socket = plain;
                return;
            }
            final SSLSocket secured = (SSLSocket)tls.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
            final SSLParameters parameters = TlsContexts.parameters(tls, false);
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            secured.setSSLParameters(parameters);
            secured.startHandshake();
            socket = secured;
        }
        catch (final IOException e)
        {
            LocalCluster.closeAll(plain);
            throw new UncheckedIOException(e);
        }
    }

    public synchronized Bootstrap write(final byte[] bytes)
    {
        try
        {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            return this;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Half-closes: the node reads the end of the stream after what was written. */
    public Bootstrap endOutput()
    {
        try
        {
            socket.shutdownOutput();
            return this;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one control message; fails when none comes within 5 s. */
    public ControlMessage read()
    {
        try
        {
            return ControlCodec.read(socket.getInputStream());
        }
        catch (final EOFException e)
        {
            throw new AssertionError("the node closed the connection without a reply", e);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** True when the node closes the connection (within 5 s) without sending another byte. */
    public boolean closedByPeer()
    {
        try
        {
            return socket.getInputStream().read() < 0;
        }
        catch (final IOException e)
        {
            return "Connection reset".equals(e.getMessage());
        }
    }

    public Socket socket()
    {
        return socket;
    }

    @Override
    public void close()
    {
        LocalCluster.closeAll(socket);
    }
}
