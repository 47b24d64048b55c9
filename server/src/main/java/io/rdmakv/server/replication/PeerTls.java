package io.rdmakv.server.replication;

import io.rdmakv.common.tls.TlsContexts;
import io.rdmakv.server.config.ServerConfig;

import javax.net.ssl.SSLContext;

/**
 * The TLS context a node dials a peer node's bootstrap port with, when it has TLS itself: it presents its own
 * certificate (so a peer that demands client certificates from the cluster's CA accepts it) and trusts the CA of
 * {@code --tls-client-ca} when given, else the certificates of its own chain file (a chain that ends with the
 * cluster's CA): the nodes of one cluster are expected to share one CA.
 */
final class PeerTls
{
    private PeerTls()
    {
    }

    /** The context, or null when the node has no TLS (the peer is then dialled in plaintext). */
    static SSLContext of(final ServerConfig.ServerTls tls)
    {
        if (tls == null)
        {
            return null;
        }
        return TlsContexts.withIdentity(tls.certChain(), tls.key(),
            tls.clientCa() != null ? tls.clientCa() : tls.certChain());
    }
}
