package io.rdmakv.client;

import io.rdmakv.common.tls.TlsContexts;

import javax.net.ssl.SSLContext;
import java.nio.file.Path;

/**
 * TLS 1.3 on the bootstrap connection to every node: the CA certificates that vouch for the nodes (PEM), and
 * optionally this client's own certificate chain and PKCS#8 key (PEM) for nodes that require client
 * certificates ({@code kvserver --tls-client-ca}). A node's certificate must chain to one of the CAs and name
 * the host the client dials (an IP address SAN for an address, a DNS SAN for a name), as for HTTPS. The files
 * are read when this is made: a file that cannot be used fails here, naming it.
 */
public final class ClientTls
{
    private final Path trustedCa;
    private final Path certChain;
    private final SSLContext context;

    private ClientTls(final Path trustedCa, final Path certChain, final SSLContext context)
    {
        this.trustedCa = trustedCa;
        this.certChain = certChain;
        this.context = context;
    }

    /** Trusts the CA certificates in {@code trustedCaPem}; presents no certificate of its own. */
    public static ClientTls trusting(final Path trustedCaPem)
    {
        return new ClientTls(trustedCaPem, null, TlsContexts.trusting(trustedCaPem));
    }

    /** Trusts the CAs in {@code trustedCaPem} and presents {@code certChainPem} (leaf first) with its key. */
    public static ClientTls withCertificate(final Path trustedCaPem, final Path certChainPem, final Path keyPem)
    {
        return new ClientTls(trustedCaPem, certChainPem, TlsContexts.withIdentity(certChainPem, keyPem, trustedCaPem));
    }

    public Path trustedCa()
    {
        return trustedCa;
    }

    /** The client's certificate chain file, or null when it presents none. */
    public Path certChain()
    {
        return certChain;
    }

    SSLContext context()
    {
        return context;
    }

    @Override
    public String toString()
    {
        return "TLS trusting " + trustedCa + (certChain == null ? "" : ", presenting " + certChain);
    }
}
