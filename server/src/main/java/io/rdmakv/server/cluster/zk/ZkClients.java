package io.rdmakv.server.cluster.zk;

import io.rdmakv.common.tls.PemFiles;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The Curator client of a node: its ensemble, timeouts and namespace, and, as {@link ZkOptions} says, a digest
 * credential (with an ACL on every znode it creates, {@link ZkAcls}) and TLS ({@link #tlsConfig}).
 */
public final class ZkClients
{
    private static final System.Logger LOG = System.getLogger(ZkClients.class.getName());

    private ZkClients()
    {
    }

    /**
     * A client for {@code options}, not started.
     *
     * @throws IllegalArgumentException when a TLS file does not hold what it should
     */
    public static CuratorFramework build(final ZkOptions options)
    {
        final CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
            .connectString(options.connectString())
            .sessionTimeoutMs(options.sessionTimeoutMs())
            .connectionTimeoutMs(options.sessionTimeoutMs())
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .namespace(options.namespace());
        final ZkCredentials credentials = options.credentials();
        if (credentials != null)
        {
            builder.authorization("digest", credentials.authBytes()).aclProvider(new ZkAcls(credentials));
            LOG.log(INFO, "ZooKeeper: authenticating as digest user '" + credentials.user() + "' (" +
                credentials.source() + "); the znodes of cluster " + options.clusterName() + " grant access to it only");
        }
        else
        {
            LOG.log(WARNING, "ZooKeeper: no credentials (--zk-auth-file or $RDMAKV_ZK_AUTH): the znodes of cluster " +
                options.clusterName() + " are open to anyone who reaches ZooKeeper at " + options.connectString() +
                ", who can rewrite the cluster map");
        }
        if (options.tls() != null)
        {
            builder.zkClientConfig(tlsConfig(options.tls()));
        }
        else
        {
            LOG.log(WARNING, "ZooKeeper: plaintext connection to " + options.connectString() + " (no --zk-tls-ca): " +
                "whoever is on the path can read and alter what the node reads and writes there");
        }
        return builder.build();
    }

    /**
     * A client configuration for TLS: Netty's client socket (the only one with TLS), ZooKeeper's certificate
     * checked against the CA (and its name against the host connected to), and the node's certificate and key
     * when given. The files are parsed here so that a wrong one is refused at start, naming its flag.
     */
    static ZKClientConfig tlsConfig(final ZkTls tls)
    {
        if (System.getProperty("io.netty.noUnsafe") == null)
        {
            // ZooKeeper's few messages do not need Netty's sun.misc.Unsafe, whose use Java 25 warns about
            System.setProperty("io.netty.noUnsafe", "true");
        }
        final ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
        try (ClientX509Util x509 = new ClientX509Util())
        {
            checked("--zk-tls-ca", () -> PemFiles.certificates(tls.ca()));
            config.setProperty(x509.getSslTruststoreLocationProperty(), tls.ca().toString());
            config.setProperty(x509.getSslTruststoreTypeProperty(), "PEM");
            if (tls.clientCertificate())
            {
                final List<X509Certificate> chain = checked("--zk-tls-cert", () -> PemFiles.certificates(tls.cert()));
                final PrivateKey key = checked("--zk-tls-key", () -> PemFiles.privateKey(tls.key()));
                checked("--zk-tls-key", () ->
                {
                    PemFiles.checkPair(key, chain.getFirst(), tls.key(), tls.cert());
                    return null;
                });
                config.setProperty(x509.getSslKeystoreLocationProperty(), keyStoreFile(tls).toString());
                config.setProperty(x509.getSslKeystoreTypeProperty(), "PEM");
            }
        }
        return config;
    }

    /**
     * ZooKeeper's PEM key store is one file holding both the key and the certificate chain: the two files are
     * joined into one that only this user may read, in a directory of its own, removed when the JVM exits (the
     * client reads it again on each reconnection).
     */
    private static Path keyStoreFile(final ZkTls tls)
    {
        try
        {
            final Path dir = Files.createTempDirectory("rdmakv-zk-tls-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            final Path file = Files.createFile(dir.resolve("client.pem"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            dir.toFile().deleteOnExit();
            file.toFile().deleteOnExit();
            Files.writeString(file, Files.readString(tls.key()) + "\n" + Files.readString(tls.cert()));
            return file;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot write the key store for TLS to ZooKeeper (--zk-tls-cert, " +
                "--zk-tls-key) to the temporary directory: " + e, e);
        }
    }

    /** Runs {@code check}, a refusal prefixed with the flag whose file it is. */
    private static <T> T checked(final String flag, final java.util.function.Supplier<T> check)
    {
        try
        {
            return check.get();
        }
        catch (final IllegalArgumentException | UncheckedIOException e)
        {
            throw new IllegalArgumentException(flag + ": " + e.getMessage(), e);
        }
    }
}
