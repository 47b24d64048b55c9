package io.rdmakv.peer;

import javax.net.ssl.SSLException;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Locale;

/**
 * Says in words what went wrong on a TLS bootstrap connection: the node's certificate not trusted, a node
 * that does not speak TLS, a node that refused this client's certificate. Null for failures that are not
 * about TLS (the node unreachable, a timeout), which stay ordinary connection failures.
 */
final class TlsFailures
{
    static final String WHERE_CA = "--tls-ca, KvClientConfig.withTls, rdmakv.tls.ca";
    static final String WHERE_CERT = "--tls-cert/--tls-key, KvClientConfig.withTls(ca, cert, key), rdmakv.tls.cert/key";

    private TlsFailures()
    {
    }

    /**
     * What {@code e} means for a connection that ran TLS ({@code handshakeDone}: the client's side of the
     * handshake completed, so a close now is the node refusing this client's certificate), or null.
     */
    static String describe(final IOException e, final boolean handshakeDone)
    {
        final String message = String.valueOf(e.getMessage());
        final String lower = message.toLowerCase(Locale.ROOT);
        if (causedBy(e, CertPathBuilderException.class) || causedBy(e, CertPathValidatorException.class))
        {
            return "the node's TLS certificate is not trusted: it does not chain to the CA certificates this " +
                "client trusts (" + WHERE_CA + "): " + rootMessage(e);
        }
        if (causedBy(e, CertificateException.class))
        {
            return "the node's TLS certificate is not trusted: " + rootMessage(e) + " (it must name the host " +
                "dialled and chain to the CA this client trusts: " + WHERE_CA + ")";
        }
        if (lower.contains("unsupported or unrecognized ssl message") || lower.contains("plaintext connection"))
        {
            return "the node does not speak TLS (it answered in plaintext): it runs without --tls-cert; connect " +
                "without TLS, or give the node a certificate";
        }
        if (lower.contains("alert") && (lower.contains("certificate") || lower.contains("unknown_ca")))
        {
            return "the node refused this client's TLS certificate (" + message + "): it requires one signed by " +
                "its --tls-client-ca (" + WHERE_CERT + ")";
        }
        if (handshakeDone && (e instanceof EOFException || e instanceof SocketException))
        {
            return "the node closed the TLS connection right after the handshake (" + message + "): it most " +
                "likely refused this client's certificate, or its absence; it requires one signed by its " +
                "--tls-client-ca (" + WHERE_CERT + "); the node's log says why";
        }
        if (e instanceof SSLException)
        {
            return "TLS handshake failed: " + message;
        }
        return null;
    }

    private static boolean causedBy(final Throwable e, final Class<? extends Throwable> kind)
    {
        for (Throwable t = e; t != null; t = t.getCause())
        {
            if (kind.isInstance(t))
            {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(final Throwable e)
    {
        Throwable t = e;
        while (t.getCause() != null)
        {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
