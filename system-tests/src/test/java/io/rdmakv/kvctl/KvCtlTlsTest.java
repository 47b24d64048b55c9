package io.rdmakv.kvctl;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.tls.TlsFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** kvctl --tls-ca, --tls-cert, --tls-key against a node that requires TLS and client certificates (no token). */
class KvCtlTlsTest
{
    private static KvServer node;
    private static TlsFixture certs;

    @BeforeAll
    static void start()
    {
        certs = TlsFixture.get();
        node = LocalCluster.startNode(ServerConfig.local(8L << 20).withTls(new ServerConfig.ServerTls(
            certs.node().certChain(), certs.node().key(), certs.ca())));
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(node);
    }

    private static KvCtlTest.Run kvctl(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("--hosts", LocalCluster.address(node), "--transport",
            LocalCluster.TRANSPORT));
        all.addAll(List.of(args));
        return KvCtlTest.kvctl(Map.of(), all.toArray(String[]::new));
    }

    @Test
    void aClientCertificateOpensTheNodeWithoutAToken()
    {
        final String[] tls = {"--tls-ca", certs.ca().toString(), "--tls-cert", certs.client().certChain().toString(),
            "--tls-key", certs.client().key().toString()};
        final List<String> put = new ArrayList<>(List.of(tls));
        put.addAll(List.of("put", "k", "v"));
        assertEquals(KvCtl.OK, kvctl(put.toArray(String[]::new)).code());
        final List<String> get = new ArrayList<>(List.of(tls));
        get.addAll(List.of("get", "k"));
        final KvCtlTest.Run run = kvctl(get.toArray(String[]::new));
        assertEquals(KvCtl.OK, run.code(), run.err());
        assertEquals("v", run.out().strip());
        final List<String> stats = new ArrayList<>(List.of(tls));
        stats.add("stats");
        assertEquals(KvCtl.OK, kvctl(stats.toArray(String[]::new)).code());
    }

    @Test
    void withoutTlsOrWithoutACertificateTheNodeIsUnreachableAndSaysWhy()
    {
        final KvCtlTest.Run plain = kvctl("get", "k");
        assertEquals(KvCtl.UNREACHABLE, plain.code());
        assertTrue(plain.err().contains("this node requires TLS"), plain.err());
        final KvCtlTest.Run noCert = kvctl("--tls-ca", certs.ca().toString(), "get", "k");
        assertEquals(KvCtl.UNREACHABLE, noCert.code());
        assertTrue(noCert.err().contains("--tls-client-ca"), noCert.err());
    }

    @Test
    void badTlsOptionsAreUsageErrors()
    {
        final KvCtlTest.Run alone = kvctl("--tls-ca", certs.ca().toString(), "--tls-cert",
            certs.client().certChain().toString(), "get", "k");
        assertEquals(KvCtl.USAGE, alone.code());
        assertTrue(alone.err().contains("--tls-cert and --tls-key go together"), alone.err());
        final KvCtlTest.Run missing = kvctl("--tls-ca", "/nonexistent/ca.pem", "get", "k");
        assertEquals(KvCtl.USAGE, missing.code());
        assertTrue(missing.err().contains("cannot read /nonexistent/ca.pem"), missing.err());
    }
}
