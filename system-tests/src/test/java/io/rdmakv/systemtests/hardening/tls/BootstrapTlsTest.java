package io.rdmakv.systemtests.hardening.tls;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.tls.TlsContexts;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.testsupport.tls.TlsFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS on the bootstrap connection end to end: a client trusting the node's CA is served; one trusting another
 * CA, dialling a name the certificate does not carry, or speaking TLS to a plain node (or plaintext to a TLS
 * node) fails at once with words that say so; a node with a client CA admits a certificate it signed without
 * a token and nothing else; and the bytes on the wire carry neither the token nor the rkeys and addresses.
 */
class BootstrapTlsTest
{
    private static final String TOKEN = "tls-test-token-5f1c0a9e";
    private static final Duration LEASE = Duration.ofMillis(2000);

    private static KvServer tlsNode;
    private static KvServer certNode;
    private static KvServer plainNode;
    private static TlsFixture certs;

    @BeforeAll
    static void start()
    {
        certs = TlsFixture.get();
        // a short lease: heartbeats must keep flowing over TLS for a session to outlive it
        final ServerConfig base = ServerConfig.local(LocalCluster.NODE_MEMORY).toBuilder().authToken(TOKEN)
            .lease(LEASE.toNanos(), LEASE.toNanos() / 5).build();
        tlsNode = LocalCluster.startNode(base.withTls(new ServerConfig.ServerTls(certs.node().certChain(),
            certs.node().key(), null)));
        certNode = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY).withTls(
            new ServerConfig.ServerTls(certs.node().certChain(), certs.node().key(), certs.ca())));
        plainNode = LocalCluster.startNode(base);
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(tlsNode, certNode, plainNode);
    }

    private static KvClientConfig config(final KvServer node)
    {
        return LocalCluster.clientConfig(LocalCluster.address(node)).withAuthToken(TOKEN);
    }

    private static void servesAKey(final KvClientConfig config)
    {
        try (KvClient client = KvClient.connect(config))
        {
            client.put(LocalCluster.bytes("tls"), LocalCluster.bytes("on"));
            assertArrayEquals(LocalCluster.bytes("on"), client.get(LocalCluster.bytes("tls")));
        }
    }

    /** Connecting fails with a message holding every one of {@code expected}, and no session is opened. */
    private static void refused(final KvServer node, final KvClientConfig config, final String... expected)
    {
        final long opened = node.counters().sessionsOpened();
        final KvConnectionException e = assertThrows(KvConnectionException.class,
            () -> KvClient.connect(config.withConnectTimeout(Duration.ofSeconds(10))).close());
        for (final String part : expected)
        {
            assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
        }
        assertEquals(opened, node.counters().sessionsOpened(), "no session opened");
    }

    @Test
    void aClientTrustingTheNodesCaIsServedAndKeepsItsLeaseOverTls() throws InterruptedException
    {
        final long expired = tlsNode.counters().get(ServerCounter.LEASES_EXPIRED);
        try (KvClient client = KvClient.connect(config(tlsNode).withTls(certs.ca())))
        {
            client.put(LocalCluster.bytes("lease"), LocalCluster.bytes("kept"));
            Thread.sleep(LEASE.toMillis() * 5 / 2);
            assertArrayEquals(LocalCluster.bytes("kept"), client.get(LocalCluster.bytes("lease")),
                "the session outlived two and a half lease timeouts on its heartbeats");
        }
        assertEquals(expired, tlsNode.counters().get(ServerCounter.LEASES_EXPIRED));
        servesAKey(LocalCluster.clientConfig("localhost:" + tlsNode.port()).withAuthToken(TOKEN).withTls(certs.ca()));
    }

    @Test
    void aClientTrustingAnotherCaFailsSayingTheCertificateIsNotTrusted()
    {
        refused(tlsNode, config(tlsNode).withTls(certs.otherCa()), "TLS with node " + LocalCluster.address(tlsNode) +
            " failed: the node's TLS certificate is not trusted: it does not chain to the CA certificates this " +
            "client trusts");
    }

    @Test
    void aCertificateThatDoesNotNameTheHostDialledIsNotTrusted()
    {
        // every 127/8 address is loopback, but the node's certificate names 127.0.0.1 and localhost only
        final KvServer elsewhere = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withAuthToken(TOKEN).withListen("127.0.0.2", 0)
            .withTls(new ServerConfig.ServerTls(certs.node().certChain(), certs.node().key(), null)));
        try
        {
            refused(elsewhere, LocalCluster.clientConfig("127.0.0.2:" + elsewhere.port()).withAuthToken(TOKEN)
                .withTls(certs.ca()), "the node's TLS certificate is not trusted", "127.0.0.2");
        }
        finally
        {
            elsewhere.close();
        }
    }

    @Test
    void aPlaintextClientToATlsNodeIsToldTheNodeRequiresTls()
    {
        final long t0 = System.nanoTime();
        refused(tlsNode, config(tlsNode), "node " + LocalCluster.address(tlsNode) + " refused the session: this " +
            "node requires TLS on its bootstrap port");
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "at once, not at a timeout");
    }

    @Test
    void aTlsClientToAPlainNodeIsToldTheNodeDoesNotSpeakTls()
    {
        refused(plainNode, config(plainNode).withTls(certs.ca()), "TLS with node " + LocalCluster.address(plainNode) +
            " failed: the node does not speak TLS");
    }

    @Test
    void withAClientCaACertificateItSignedReplacesTheTokenAndNothingElseGetsIn()
    {
        final KvClientConfig noToken = LocalCluster.clientConfig(LocalCluster.address(certNode));
        refused(certNode, noToken.withTls(certs.ca()), "TLS with node " + LocalCluster.address(certNode) +
            " failed:", "certificate", "--tls-client-ca");
        refused(certNode, noToken.withTls(certs.ca(), certs.rogue().certChain(), certs.rogue().key()),
            "certificate", "--tls-client-ca");
        refused(certNode, noToken, "this node requires TLS");
        servesAKey(noToken.withTls(certs.ca(), certs.client().certChain(), certs.client().key()));
    }

    @Test
    void theWireCarriesNeitherTheTokenNorTheRkeysNorTheAddresses()
    {
        // the control: in plaintext the recorder does see them (so it can see them at all)
        final List<byte[]> plainSecrets = secretsOf(plainNode, null);
        final byte[] plainWire = recordedConnect(plainNode, config(plainNode));
        for (final byte[] secret : plainSecrets)
        {
            assertTrue(indexOf(plainWire, secret) >= 0, "a plaintext bootstrap shows " + hex(secret));
        }

        final List<byte[]> secrets = secretsOf(tlsNode, certs.ca());
        final byte[] wire = recordedConnect(tlsNode, config(tlsNode).withTls(certs.ca()));
        assertTrue(wire.length > 1000 && wire[0] == TlsContexts.HANDSHAKE_RECORD,
            "the recorder saw a TLS conversation: " + wire.length + " bytes");
        for (final byte[] secret : secrets)
        {
            assertEquals(-1, indexOf(wire, secret), hex(secret) + " is not on the wire");
        }
    }

    /** The token, both rkeys and both region addresses of {@code node}, as HELLO_OK and HELLO carry them. */
    private static List<byte[]> secretsOf(final KvServer node, final java.nio.file.Path ca)
    {
        try (RawSession peer = new RawSession(node.port(), TOKEN, RawSession.BUFFER,
            ca == null ? null : TlsContexts.trusting(ca)))
        {
            final HelloOkMessage hello = peer.hello();
            final List<byte[]> secrets = new ArrayList<>();
            secrets.add(TOKEN.getBytes(StandardCharsets.UTF_8));
            secrets.add(le(hello.indexRegion().rkey()));
            secrets.add(le(hello.dataRegion().rkey()));
            secrets.add(le(hello.indexRegion().address()));
            secrets.add(le(hello.dataRegion().address()));
            return secrets;
        }
    }

    /** Connects through a recorder (the seed session's bootstrap passes it), uses the client, returns the bytes. */
    private static byte[] recordedConnect(final KvServer node, final KvClientConfig config)
    {
        try (WireRecorder recorder = new WireRecorder(node.port()))
        {
            final KvClientConfig through = new KvClientConfig(KvClientConfig.parseHosts("127.0.0.1:" + recorder.port()),
                config.authToken(), config.transport(), config.tcpBindHost(), config.opTimeout(),
                config.connectTimeout(), config.asyncThreads(), null, config.waitStrategy(), config.cacheEntries(), config.tls());
            servesAKey(through);
            return recorder.bytes();
        }
    }

    private static byte[] le(final int value)
    {
        return ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(value).array();
    }

    private static byte[] le(final long value)
    {
        return ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }

    private static int indexOf(final byte[] haystack, final byte[] needle)
    {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++)
        {
            for (int j = 0; j < needle.length; j++)
            {
                if (haystack[i + j] != needle[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String hex(final byte[] bytes)
    {
        return java.util.HexFormat.of().formatHex(bytes);
    }
}
