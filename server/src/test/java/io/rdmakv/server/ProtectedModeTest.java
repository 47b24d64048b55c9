package io.rdmakv.server;

import io.rdmakv.server.config.ProtectedMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.testsupport.tls.TlsFixture;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Protected mode: without a token or client certificates a node listens only on loopback unless started
 * {@code --insecure}, refusing with one line that names both ways out (exit 2); whenever authentication is
 * off, or a token crosses a network in cleartext, it says so at start.
 */
class ProtectedModeTest
{
    private static final long MEMORY = 16L << 20;

    private static ServerConfig.Builder node(final String host)
    {
        return ServerConfig.builder().listen(host, 0).memoryBytes(MEMORY).transport("tcp");
    }

    @Test
    void noAuthOnAllAddressesIsRefusedWithOneLineNamingBothWaysOut() throws InterruptedException
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = NodeRunner.run(node("0.0.0.0").build(), new PrintWriter(out), new PrintWriter(err));
        assertEquals(KvServerCommand.EXIT_USAGE, code, err.toString());
        assertEquals("kvserver: refusing to listen on 0.0.0.0 with authentication off (anyone who reaches the port " +
            "could read and write every key): set an auth token (--auth-token or $RDMAKV_AUTH_TOKEN) or require " +
            "client certificates (--tls-client-ca), or start with --insecure to accept that" + System.lineSeparator(),
            err.toString());
        assertEquals("", out.toString(), "nothing started");
    }

    @Test
    void theCommandLineSaysTheSameForInsecureFromTheEnvironmentOrFile()
    {
        final CommandRun refused = CommandRun.of("--listen", "0.0.0.0:0");
        assertEquals(0, refused.code(), refused.err());
        assertFalse(refused.config().insecure());
        assertTrue(CommandRun.of("--listen", "0.0.0.0:0", "--insecure").config().insecure());
        assertTrue(CommandRun.of(java.util.Map.of("RDMAKV_INSECURE", "true")).config().insecure());
        assertFalse(CommandRun.of("--insecure=false").config().insecure());
    }

    @Test
    void aTokenClientCertificatesInsecureOrLoopbackEachLetANodeStart() throws IOException
    {
        final TlsFixture f = TlsFixture.get();
        final List<ServerConfig> starting = List.of(
            node("0.0.0.0").authToken("t0ken").build(),
            node("0.0.0.0").tls(new ServerConfig.ServerTls(f.node().certChain(), f.node().key(), f.ca())).build(),
            node("0.0.0.0").insecure(true).build(),
            node("127.0.0.1").build(),
            node("localhost").build());
        for (final ServerConfig config : starting)
        {
            try (KvServer server = KvServer.start(config))
            {
                assertTrue(server.port() > 0, config.toString());
            }
        }
    }

    @Test
    void theStartWarnsWhenAuthIsOffOrTheTokenTravelsInCleartext()
    {
        final String off = "warning: authentication is off: any client that reaches ";
        assertEquals(List.of(off + "127.0.0.1:7400 may open a session and read and write every key (loopback only); " +
            "set --auth-token or --tls-client-ca to require one"), ProtectedMode.warnings(node("127.0.0.1").build(), 7400));
        assertTrue(ProtectedMode.warnings(node("0.0.0.0").insecure(true).build(), 7400).getFirst()
            .startsWith(off + "0.0.0.0:7400 may open a session and read and write every key (--insecure)"));
        assertEquals(List.of("warning: no TLS on 0.0.0.0:7400: the auth token and the region's keys and addresses " +
                "cross the network in cleartext; set --tls-cert and --tls-key"),
            ProtectedMode.warnings(node("0.0.0.0").authToken("t").build(), 7400));
        assertEquals(List.of(), ProtectedMode.warnings(node("127.0.0.1").authToken("t").build(), 7400),
            "a token on loopback crosses no network");
        final TlsFixture f = TlsFixture.get();
        assertEquals(List.of(), ProtectedMode.warnings(node("0.0.0.0").authToken("t")
            .tls(new ServerConfig.ServerTls(f.node().certChain(), f.node().key(), null)).build(), 7400));
    }

    @Test
    void tlsOptionsComeInPairsAndTheMetricsEndpointDefaultsToLoopback()
    {
        assertEquals("127.0.0.1", CommandRun.of().config().metricsHost());
        final CommandRun certOnly = CommandRun.of("--tls-cert", "/x.pem");
        assertEquals(KvServerCommand.EXIT_USAGE, certOnly.code());
        assertTrue(certOnly.err().contains("'--tls-cert' ('/x.pem'): needs --tls-key"), certOnly.err());
        final CommandRun caOnly = CommandRun.of("--tls-client-ca", "/ca.pem");
        assertEquals(KvServerCommand.EXIT_USAGE, caOnly.code());
        assertTrue(caOnly.err().contains("client certificates need TLS"), caOnly.err());
    }

    @Test
    void aTlsFileThatCannotBeUsedIsAUsageErrorNamingIt() throws InterruptedException
    {
        final TlsFixture f = TlsFixture.get();
        final StringWriter err = new StringWriter();
        final ServerConfig config = node("127.0.0.1").tls(new ServerConfig.ServerTls(f.node().certChain(),
            f.client().key(), null)).build();
        assertEquals(KvServerCommand.EXIT_USAGE, NodeRunner.run(config, new PrintWriter(new StringWriter()),
            new PrintWriter(err)));
        assertTrue(err.toString().startsWith("kvserver: the private key in " + f.client().key() +
            " does not belong to the certificate CN=node"), err.toString());
    }
}
