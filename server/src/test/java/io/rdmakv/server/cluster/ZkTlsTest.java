package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.zk.ZkCredentials;
import io.rdmakv.server.cluster.zk.ZkOptions;
import io.rdmakv.server.cluster.zk.ZkTls;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Nodes and a ZooKeeper that has only a TLS client port (and asks for client certificates). */
class ZkTlsTest
{
    private static final int SESSION_TIMEOUT_MS = 1500;
    /** What ZkMembership waits for a connection with this session timeout: max(10 s, 2 session timeouts). */
    private static final long CONNECT_WAIT_MS = 10_000;

    @TempDir
    static Path dir;
    private static TlsZooKeeper zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception
    {
        zookeeper = new TlsZooKeeper(dir);
    }

    @AfterAll
    static void stopZooKeeper()
    {
        if (zookeeper != null)
        {
            zookeeper.close();
        }
    }

    private static ZkOptions options(final ZkTls tls)
    {
        return new ZkOptions(zookeeper.connectString(), "tls", 1, 8, SESSION_TIMEOUT_MS, 300)
            .withCredentials(ZkCredentials.parse("rdmakv:tls-test", "the test")).withTls(tls);
    }

    private static ZkTls mutual()
    {
        return new ZkTls(zookeeper.ca, zookeeper.clientCert, zookeeper.clientKey);
    }

    @Test
    void aNodeWithTheCaAndItsCertificateJoinsOverTls() throws Exception
    {
        final Recorder recorder = new Recorder();
        try (ZkMembership m = ZkMembership.start(options(mutual()), ZkTestCluster.member(0, 7), recorder))
        {
            ZkTestCluster.await("a map of node 0 over TLS", () -> recorder.last() != null &&
                recorder.last().nodes().size() == 1);
            assertEquals(1, m.replicas());
        }
    }

    /** Starting fails with an IOException whose message names {@code expected}, within the connect wait. */
    private static void refused(final ZkTls tls, final String... expected)
    {
        final long start = System.nanoTime();
        final IOException e = assertThrows(IOException.class,
            () -> ZkMembership.start(options(tls), ZkTestCluster.member(1, 8), new Recorder()).close());
        final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        for (final String words : expected)
        {
            assertTrue(e.getMessage().contains(words), "'" + words + "' in: " + e.getMessage());
        }
        assertTrue(tookMs < CONNECT_WAIT_MS + 5000, "refused in " + tookMs + " ms, about the connect wait");
    }

    @Test
    void aNodeWithAnotherCaIsRefusedWithinItsConnectTimeout()
    {
        refused(new ZkTls(zookeeper.otherCa, zookeeper.clientCert, zookeeper.clientKey),
            "cannot reach ZooKeeper at " + zookeeper.connectString(), "over TLS", "--zk-tls-ca " + zookeeper.otherCa);
    }

    @Test
    void aNodeWithoutTheCredentialIsClosedOutByEnforcedAuthentication()
    {
        final long start = System.nanoTime();
        final IOException e = assertThrows(IOException.class, () -> ZkMembership.start(
            options(mutual()).withCredentials(null), ZkTestCluster.member(3, 10), new Recorder()).close());
        assertTrue(e.getMessage().contains("enforce.auth") && e.getMessage().contains("--zk-auth-file"),
            e.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(CONNECT_WAIT_MS + 5000));
    }

    @Test
    void aNodeWithoutTlsIsRefusedSayingSo()
    {
        refused(null, "plaintext", "--zk-tls-ca");
    }

    @Test
    void aNodeWithoutTheClientCertificateZooKeeperAsksForIsRefused()
    {
        refused(new ZkTls(zookeeper.ca, null, null), "over TLS", "client certificate");
    }

    @Test
    void aFileThatIsNotWhatItsFlagSaysIsRefusedAtOnceNamingTheFlag()
    {
        final IllegalArgumentException key = assertThrows(IllegalArgumentException.class, () -> ZkMembership.start(
            options(new ZkTls(zookeeper.ca, zookeeper.clientCert, zookeeper.clientCert)), ZkTestCluster.member(2, 9),
            new Recorder()));
        assertTrue(key.getMessage().startsWith("--zk-tls-key: "), key.getMessage());
        final IllegalArgumentException ca = assertThrows(IllegalArgumentException.class, () -> ZkMembership.start(
            options(new ZkTls(zookeeper.clientKey, null, null)), ZkTestCluster.member(2, 9), new Recorder()));
        assertTrue(ca.getMessage().startsWith("--zk-tls-ca: "), ca.getMessage());
    }
}
