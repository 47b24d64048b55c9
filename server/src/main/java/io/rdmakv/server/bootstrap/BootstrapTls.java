package io.rdmakv.server.bootstrap;

import io.rdmakv.common.tls.TlsContexts;
import io.rdmakv.server.config.ServerConfig;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;

/**
 * The server's side of TLS 1.3 on the bootstrap port: the node's certificate, and (with a client CA) the
 * demand for a client certificate that CA signed. A connection is TLS when its first byte opens a TLS
 * record ({@link TlsContexts#HANDSHAKE_RECORD}); the listener reads that byte itself, so that it can tell a
 * plaintext HELLO (refused with a reason the client can read) from a ClientHello, and hands it back here.
 */
public final class BootstrapTls
{
    private final SSLContext context;
    private final SSLParameters parameters;
    private final boolean clientCertificates;

    private BootstrapTls(final SSLContext context, final boolean clientCertificates)
    {
        this.context = context;
        this.clientCertificates = clientCertificates;
        parameters = TlsContexts.parameters(context, clientCertificates);
    }

    /** Reads the PEM files of {@code settings}; throws {@link io.rdmakv.common.tls.TlsSetupException} naming one. */
    public static BootstrapTls from(final ServerConfig.ServerTls settings)
    {
        return new BootstrapTls(TlsContexts.withIdentity(settings.certChain(), settings.key(), settings.clientCa()),
            settings.requiresClientCertificates());
    }

    /** Whether clients must present a certificate. */
    public boolean requiresClientCertificates()
    {
        return clientCertificates;
    }

    /**
     * Runs the server side of the handshake over {@code plain}, whose first byte {@code firstByte} was already
     * read; the caller bounds it in time (by closing {@code plain}). Closing the returned socket closes
     * {@code plain}.
     */
    SSLSocket handshake(final Socket plain, final int firstByte) throws IOException
    {
        final SSLSocket tls = (SSLSocket)context.getSocketFactory().createSocket(plain,
            new ByteArrayInputStream(new byte[] {(byte)firstByte}), true);
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        return tls;
    }

    /** The subject of the client's verified certificate, or null when it presented none. */
    static String clientSubject(final SSLSocket socket)
    {
        try
        {
            final Certificate[] chain = socket.getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x ?
                x.getSubjectX500Principal().getName() : null;
        }
        catch (final SSLPeerUnverifiedException e)
        {
            return null;
        }
    }
}
