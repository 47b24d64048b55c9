package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.tls.TlsContexts;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.testsupport.net.SlowPeer;
import io.rdmakv.testsupport.tls.TestCertificates;
import io.rdmakv.testsupport.tls.TlsFixture;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS on the bootstrap port: a handshake that stalls or trickles is dropped at the HELLO deadline like a
 * stalled HELLO, a plaintext HELLO to a TLS port (and a ClientHello to a plain one) is refused in plaintext
 * with a reason the peer can read, and with a client CA only a client certificate it signed gets a session.
 */
class BootstrapTlsTest
{
    /** Long enough for a good client's handshake on a loaded machine; the stalled peers are held to it. */
    private static final Duration DEADLINE = Duration.ofMillis(4000);
    private static final int WAIT_MS = 15_000;
    private static final byte[] HELLO = ControlCodec.toBytes(new HelloMessage(7, new byte[0],
        QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 3, 4)));

    private final Queue<Socket> opened = new ConcurrentLinkedQueue<>();
    private BootstrapListener listener;

    @AfterEach
    void stop()
    {
        if (listener != null)
        {
            listener.close();
            listener.closeConnections();
        }
    }

    private void start(final ServerConfig.ServerTls tls) throws IOException
    {
        listener = new BootstrapListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            tls == null ? null : BootstrapTls.from(tls), TimeUnit.SECONDS.toNanos(3), DEADLINE, (hello, socket) ->
            {
                opened.add(socket);
                return new BootstrapListener.Outcome(CodedRefusalMessage.helloRefused(hello.requestId(),
                    ReasonCode.SHUTTING_DOWN.code(), "seen"), null);
            }, new NodeHealth());
        listener.start();
    }

    private static ServerConfig.ServerTls nodeTls(final boolean clientCa)
    {
        final TlsFixture f = TlsFixture.get();
        return new ServerConfig.ServerTls(f.node().certChain(), f.node().key(), clientCa ? f.ca() : null);
    }

    @Test
    void stalledAndTricklingHandshakesAreClosedAtTheDeadlineWhileOthersAreServed() throws Exception
    {
        start(nodeTls(false));
        helloOverTls(TlsContexts.trusting(TlsFixture.get().ca())); // loads and warms the TLS code on both ends
        final long t0 = System.nanoTime();
        try (Socket idle = plain(); Socket trickling = plain())
        {
            idle.getOutputStream().write(TlsContexts.HANDSHAKE_RECORD);
            final CompletableFuture<Long> idleClosed = closedAt(idle);
            final CompletableFuture<Long> tricklingClosed = closedAt(trickling);
            // a handshake record of 512 bytes, one byte every 100 ms: each read is quick, the whole is not
            final byte[] record = Arrays.copyOf(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00}, 5 + 512);
            Thread.ofVirtual().start(() -> SlowPeer.trickle(trickling, record, 100));

            final ControlMessage reply = helloOverTls(TlsContexts.trusting(TlsFixture.get().ca()));
            assertEquals("seen", CodedRefusalMessage.expect(MessageType.HELLO_REFUSED, reply).text());
            final long answered = System.nanoTime();
            for (final long end : new long[] {idleClosed.get(WAIT_MS, TimeUnit.MILLISECONDS),
                tricklingClosed.get(WAIT_MS, TimeUnit.MILLISECONDS)})
            {
                final long afterMs = TimeUnit.NANOSECONDS.toMillis(end - t0);
                assertTrue(answered < end, "a good client was served while the others held their connections");
                assertTrue(afterMs >= DEADLINE.toMillis() - 100 && afterMs <= DEADLINE.toMillis() + 5_000,
                    "closed " + afterMs + " ms after connecting, deadline " + DEADLINE.toMillis() + " ms");
            }
        }
    }

    @Test
    void aPlaintextHelloToATlsPortIsRefusedReadably() throws Exception
    {
        start(nodeTls(false));
        try (Socket socket = plain())
        {
            socket.getOutputStream().write(HELLO);
            final CodedRefusalMessage refused = CodedRefusalMessage.expect(MessageType.HELLO_REFUSED, read(socket));
            assertEquals(ReasonCode.TLS_REQUIRED.code(), refused.code());
            assertEquals(BootstrapListener.TLS_REQUIRED, refused.text());
            assertEquals(-1, socket.getInputStream().read(), "then the node closes the connection");
        }
        assertTrue(opened.isEmpty(), "no session was asked for");
    }

    @Test
    void aClientHelloToAPlainPortIsRefusedInPlaintext() throws Exception
    {
        start(null);
        try (Socket socket = plain())
        {
            socket.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x00, 0x40, 0x01, 0x00, 0x00, 0x3c, 0x03,
                0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
            final CodedRefusalMessage refused = CodedRefusalMessage.expect(MessageType.HELLO_REFUSED, read(socket));
            assertEquals(BootstrapListener.NO_TLS, refused.text());
        }
        // and the JDK's TLS client sees a peer that does not speak TLS (the client's words for it: KvClient's tests)
        assertThrows(SSLException.class, () -> helloOverTls(TlsContexts.trusting(TlsFixture.get().ca())));
    }

    @Test
    void withAClientCaOnlyACertificateItSignedIsServed() throws Exception
    {
        start(nodeTls(true));
        final TlsFixture f = TlsFixture.get();
        // no certificate, or one from another CA: the handshake fails; the client sees it on its first read
        assertThrows(IOException.class, () -> helloOverTls(TlsContexts.trusting(f.ca())));
        assertThrows(IOException.class, () -> helloOverTls(identity(f.rogue(), f.ca())));
        assertTrue(opened.isEmpty(), "no session was asked for: " + opened);

        final ControlMessage reply = helloOverTls(identity(f.client(), f.ca()));
        assertEquals("seen", CodedRefusalMessage.expect(MessageType.HELLO_REFUSED, reply).text());
        final SSLSocket served = assertInstanceOf(SSLSocket.class, opened.poll());
        assertEquals("CN=client", BootstrapTls.clientSubject(served));
    }

    private static SSLContext identity(final TestCertificates.Identity id, final java.nio.file.Path ca)
    {
        return TlsContexts.withIdentity(id.certChain(), id.key(), ca);
    }

    /** A HELLO over TLS 1.3 (the node's name checked as a client does); returns the reply. */
    private ControlMessage helloOverTls(final SSLContext context) throws IOException
    {
        try (Socket raw = plain(); SSLSocket tls = (SSLSocket)context.getSocketFactory().createSocket(raw,
            "127.0.0.1", listener.port(), true))
        {
            final var parameters = TlsContexts.parameters(context, false);
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(parameters);
            tls.startHandshake();
            tls.getOutputStream().write(HELLO);
            tls.getOutputStream().flush();
            return read(tls);
        }
    }

    private Socket plain() throws IOException
    {
        final Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.port()), WAIT_MS);
        socket.setSoTimeout(WAIT_MS);
        return socket;
    }

    private static ControlMessage read(final Socket socket) throws IOException
    {
        return ControlCodec.read(socket.getInputStream());
    }

    private static CompletableFuture<Long> closedAt(final Socket socket)
    {
        final CompletableFuture<Long> closed = new CompletableFuture<>();
        Thread.ofVirtual().start(() ->
        {
            try
            {
                while (socket.getInputStream().read() >= 0)
                {
                    // a TLS server may answer part of a handshake: wait for the end
                }
                closed.complete(System.nanoTime());
            }
            catch (final SocketException e)
            {
                closed.complete(System.nanoTime());
            }
            catch (final IOException e)
            {
                closed.completeExceptionally(new AssertionError("not closed within " + WAIT_MS + " ms: " + e));
            }
        });
        return closed;
    }
}
