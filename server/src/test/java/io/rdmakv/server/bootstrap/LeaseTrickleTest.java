package io.rdmakv.server.bootstrap;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.tls.TlsContexts;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.testsupport.net.HeldBackSocket;
import io.rdmakv.testsupport.net.SlowPeer;
import io.rdmakv.testsupport.tls.TlsFixture;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Heartbeats sent one byte at a time keep no lease, over TLS as in plaintext: each heartbeat arrives whole
 * only after the lease timeout, so the session's lease expires at the timeout after its last whole one
 * (HELLO_OK here), whether the bytes come as plaintext frames or inside TLS records. Over TLS this is the
 * case to watch: every byte restarts a socket read timeout, and the read returns only once the record is
 * whole, so the lease must be timed on whole heartbeats, not on the socket. Whole heartbeats keep it in both.
 */
class LeaseTrickleTest
{
    private static final long LEASE_MS = 1_000;
    /** Scheduling slack on a loaded 2-core machine. */
    private static final long MARGIN_MS = 700;
    private static final long PAUSE_MS = 150;
    private static final int HEARTBEATS = 40;
    private static final long WAIT_MS = 10_000;

    private final BlockingQueue<SessionEnd> ends = new ArrayBlockingQueue<>(8);
    private BootstrapListener listener;
    /** When the last HELLO was sent: its lease began later. */
    private long helloSentAt;

    @AfterEach
    void stop()
    {
        listener.close();
        listener.closeConnections();
    }

    /** A listener with a {@link #LEASE_MS} lease whose factory records how each session ended. */
    private void start(final boolean tls) throws IOException
    {
        listener = new BootstrapListener(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            tls ? BootstrapTls.from(new ServerConfig.ServerTls(TlsFixture.get().node().certChain(),
                TlsFixture.get().node().key(), null)) : null,
            TimeUnit.MILLISECONDS.toNanos(LEASE_MS), Duration.ofSeconds(10),
            (hello, socket) -> new BootstrapListener.Outcome(new StatsMessage(hello.requestId()), ends::add),
            new NodeHealth());
        listener.start();
    }

    /** Connects {@code raw} and, over TLS when {@code tls}, says HELLO; returns the session's socket. */
    private Socket session(final HeldBackSocket raw, final boolean tls) throws IOException
    {
        raw.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.port()), (int)WAIT_MS);
        raw.setSoTimeout((int)WAIT_MS);
        raw.setTcpNoDelay(true);
        final Socket session = tls ? overTls(raw, TlsContexts.trusting(TlsFixture.get().ca())) : raw;
        helloSentAt = System.nanoTime();
        session.getOutputStream().write(ControlCodec.toBytes(new HelloMessage(7, new byte[0],
            QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 9))));
        session.getOutputStream().flush();
        assertEquals(new StatsMessage(7), ControlCodec.read(session.getInputStream()), "the factory's reply");
        return session;
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void wholeHeartbeatsKeepTheLeaseAcrossManyTimeouts(final boolean tls) throws Exception
    {
        start(tls);
        try (HeldBackSocket raw = new HeldBackSocket(); Socket session = session(raw, tls))
        {
            final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * LEASE_MS);
            for (long n = 1; System.nanoTime() < until; n++)
            {
                session.getOutputStream().write(ControlCodec.toBytes(new HeartbeatMessage(n, 0)));
                session.getOutputStream().flush();
                Thread.sleep(LEASE_MS / 5);
            }
            assertNull(ends.poll(), "heartbeats every " + LEASE_MS / 5 + " ms keep a " + LEASE_MS + " ms lease");
        }
        final SessionEnd end = ends.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(end, "the session did not end when its connection closed");
        assertEquals(SessionEnd.Kind.CLOSED, end.kind(), end.detail());
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void aTrickleOfHeartbeatsIsFencedAtTheLeaseTimeout(final boolean tls) throws Exception
    {
        start(tls);
        try (HeldBackSocket raw = new HeldBackSocket(); Socket session = session(raw, tls))
        {
            final OutputStream out = session.getOutputStream();

            raw.holdBack();
            for (int i = 1; i <= HEARTBEATS; i++)
            {
                // one TLS record per heartbeat (with TLS), sent on to the node one byte every PAUSE_MS
                final byte[] heartbeat = ControlCodec.toBytes(new HeartbeatMessage(i, 0));
                out.write(heartbeat);
                out.flush();
            }
            final byte[] wire = raw.takeHeldBack();
            final int perHeartbeat = wire.length / HEARTBEATS;
            assertTrue(perHeartbeat * PAUSE_MS > LEASE_MS + MARGIN_MS, "each heartbeat takes longer than the lease");
            Thread.ofVirtual().start(() -> SlowPeer.trickle(raw, wire, PAUSE_MS));

            final SessionEnd end = ends.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - helloSentAt);
            System.out.printf("tls=%s: %d bytes per heartbeat, one every %d ms: %s after %d ms (lease %d ms, from " +
                "HELLO)%n", tls, perHeartbeat, PAUSE_MS, end == null ? "still held" : end.kind(), tookMs, LEASE_MS);
            assertNotNull(end, "a trickle of heartbeats held the lease for " + tookMs + " ms (lease " + LEASE_MS +
                " ms, tls " + tls + ")");
            assertEquals(SessionEnd.Kind.LEASE_EXPIRED, end.kind(), end.detail());
            assertTrue(tookMs >= LEASE_MS && tookMs <= LEASE_MS + MARGIN_MS, "the lease expired " + tookMs +
                " ms after HELLO, lease " + LEASE_MS + " ms");
            // in plaintext the listener leaves the connection to the session's owner, which fences the session
            // first; TLS cannot resume a record cut short and closes it (the owner still fences it as expired)
            assertEquals(!tls, leftOpen(raw), "the connection of an expired lease left open");
        }
    }

    /** Whether the node has not closed {@code raw} (read beneath TLS: whatever comes, until the end or a pause). */
    private static boolean leftOpen(final Socket raw) throws IOException
    {
        raw.setSoTimeout(300);
        try
        {
            while (raw.getInputStream().read() >= 0)
            {
                // an alert would come before the end: read on
            }
            return false;
        }
        catch (final SocketTimeoutException e)
        {
            return true;
        }
        catch (final SocketException e)
        {
            return false;
        }
    }

    private static SSLSocket overTls(final Socket raw, final SSLContext context) throws IOException
    {
        final SSLSocket tls = (SSLSocket)context.getSocketFactory().createSocket(raw, "127.0.0.1", raw.getPort(),
            true);
        final var parameters = TlsContexts.parameters(context, false);
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        return tls;
    }
}
