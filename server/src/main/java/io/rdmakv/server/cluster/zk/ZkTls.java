package io.rdmakv.server.cluster.zk;

import java.nio.file.Path;

/**
 * TLS to ZooKeeper: the CA that signed ZooKeeper's certificate and, when ZooKeeper asks for client
 * certificates, this node's certificate chain and key. All PEM files, as for the bootstrap port's TLS: the key
 * an unencrypted PKCS#8 key ({@code -----BEGIN PRIVATE KEY-----}).
 *
 * @param ca   PEM CA certificates that verify ZooKeeper's certificate ({@code --zk-tls-ca})
 * @param cert this node's PEM certificate chain, or null ({@code --zk-tls-cert})
 * @param key  the private key of {@code cert}, or null ({@code --zk-tls-key})
 */
public record ZkTls(Path ca, Path cert, Path key)
{
    public ZkTls
    {
        if (ca == null)
        {
            throw new IllegalArgumentException("TLS to ZooKeeper needs the CA that signed its certificate (--zk-tls-ca)");
        }
        if ((cert == null) != (key == null))
        {
            throw new IllegalArgumentException(cert == null ? "--zk-tls-key needs --zk-tls-cert" :
                "--zk-tls-cert needs --zk-tls-key");
        }
    }

    /** Whether the node presents a client certificate. */
    public boolean clientCertificate()
    {
        return cert != null;
    }
}
