package io.rdmakv.server;

import io.rdmakv.common.protocol.CmTicket;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.server.control.ServerSession;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ConnectionManager;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.VerbsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's gate on rdma_cm connect requests, without a device: a scripted listener hands each request's private
 * data to the node's decision as rdma_cm would, and the sessions are real ({@code tcp} queue pairs in RESET).
 * Only a request that names a session the bootstrap admitted, with that session's token, once, gets its queue pair.
 */
class RdmaCmSessionsTest
{
    private static final InetSocketAddress LISTENER = new InetSocketAddress("10.77.0.1", 20000);
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.77.0.2", 40000);
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private final List<ServerSession> sessions = new ArrayList<>();
    private final ScriptedListener listener = new ScriptedListener();
    private final BlockingQueue<String> fenced = new LinkedBlockingQueue<>();
    private RdmaCmSessions cm;

    /** Answers accept() with the scripted requests, each put to the decision as rdma_cm puts it. */
    private static final class ScriptedListener implements ConnectionManager.Listener
    {
        final BlockingQueue<byte[]> requests = new LinkedBlockingQueue<>();
        final BlockingQueue<Object> answers = new LinkedBlockingQueue<>(); // a ScriptedConnection, or "rejected"
        volatile long rejected;
        volatile boolean closed;

        @Override
        public InetSocketAddress address()
        {
            return LISTENER;
        }

        @Override
        public ConnectionManager.Connection accept(final long timeoutNanos, final long establishNanos,
            final ConnectOptions options, final ConnectionManager.Decision decision)
        {
            final byte[] request;
            try
            {
                request = requests.poll(timeoutNanos, TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return null;
            }
            if (request == null)
            {
                return null;
            }
            final QueuePair qp = decision.queuePairFor(request, CLIENT);
            if (qp == null)
            {
                rejected++;
                answers.add("rejected");
                return null;
            }
            qp.modifyToInit(options); // what rdma_cm does before it asks for the receives
            decision.initialized(qp);
            final ScriptedConnection connection = new ScriptedConnection(qp);
            answers.add(connection);
            return connection;
        }

        @Override
        public long rejectedCount()
        {
            return rejected;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }

    private static final class ScriptedConnection implements ConnectionManager.Connection
    {
        final QueuePair qp;
        volatile boolean peerLeft;
        volatile boolean closed;

        ScriptedConnection(final QueuePair qp)
        {
            this.qp = qp;
        }

        @Override
        public boolean pollDisconnected(final long timeoutNanos)
        {
            return peerLeft;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }

    @BeforeEach
    void open()
    {
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(64);
    }

    @AfterEach
    void close()
    {
        if (cm != null)
        {
            cm.close();
        }
        sessions.forEach(ServerSession::close);
        cq.close();
        pd.close();
        context.close();
    }

    private void start(final long connectDeadlineNanos)
    {
        cm = new RdmaCmSessions(listener, connectDeadlineNanos);
        cm.start((session, why) -> fenced.add(session.id() + ": " + why));
    }

    /** A session as SessionOpener makes one for rdma_cm: queue pair in RESET, a ticket, the link attached. */
    private RdmaCmSessions.Link admit(final long id)
    {
        final ServerSession session = new ServerSession(id, 1, "client", pd, MessageHeaderDescriptor.MAX_MESSAGE_LENGTH);
        sessions.add(session);
        session.attach(pd.createQueuePair(new QueuePairConfig(cq, cq, 16, ServerSession.RECV_BUFFERS, 1, 1, 64)), null);
        final RdmaCmSessions.Link link = cm.expect(session);
        session.attachConnection(link);
        return link;
    }

    private Object answer(final byte[] privateData) throws InterruptedException
    {
        listener.requests.add(privateData);
        final Object answer = listener.answers.poll(WAIT_NANOS, TimeUnit.NANOSECONDS);
        assertTrue(answer != null, "no answer to the connect request");
        return answer;
    }

    @Test
    void aRequestWithTheSessionsTicketGetsItsQueuePairOnce() throws Exception
    {
        start(WAIT_NANOS * 6);
        final RdmaCmSessions.Link link = admit(101);
        final ServerSession session = sessions.getFirst();
        assertEquals(LISTENER, link.ticket().socketAddress(), "the ticket names the listener");
        assertEquals(QpState.RESET, session.qp().state(), "nothing is connected before the request");

        final Object first = answer(link.ticket().privateData(101));
        assertTrue(first instanceof ScriptedConnection, "accepted: " + first);
        assertSame(session.qp(), ((ScriptedConnection)first).qp);
        assertEquals(QpState.INIT, session.qp().state());

        assertEquals("rejected", answer(link.ticket().privateData(101)), "a ticket is good once");
        assertEquals(1, cm.rejectedCount());
        assertNull(fenced.poll(), "a replayed request leaves the connected session alone");
    }

    @Test
    void requestsWithoutTheRightTicketAreRejectedAndTheSessionStillWaits() throws Exception
    {
        start(WAIT_NANOS * 6);
        final RdmaCmSessions.Link link = admit(201);
        final RdmaCmSessions.Link other = admit(202);
        final byte[] good = link.ticket().privateData(201);

        final byte[] wrongToken = good.clone();
        wrongToken[20] ^= 0x40;
        assertEquals("rejected", answer(wrongToken), "a guessed token");
        assertEquals("rejected", answer(other.ticket().privateData(201)), "another session's token");
        assertEquals("rejected", answer(link.ticket().privateData(999)), "a session the bootstrap never admitted");
        assertEquals("rejected", answer(new byte[56]), "no ticket at all (zeros, as InfiniBand pads)");
        assertEquals("rejected", answer("GET / HTTP/1.0".getBytes()), "someone else's private data");
        assertEquals("rejected", answer(Arrays.copyOf(good, 20)), "a truncated ticket");
        assertEquals(6, cm.rejectedCount());
        assertNull(fenced.poll(), "rejected requests fence nothing");

        assertTrue(answer(good) instanceof ScriptedConnection, "the session's own ticket still connects it");
        assertTrue(answer(other.ticket().privateData(202)) instanceof ScriptedConnection);
    }

    @Test
    void aSessionThatEndedBeforeItsClientConnectedIsNotConnected() throws Exception
    {
        start(WAIT_NANOS * 6);
        final RdmaCmSessions.Link link = admit(301);
        sessions.removeFirst().close(); // the bootstrap connection closed, a map change, ...: closes the link too
        assertEquals("rejected", answer(link.ticket().privateData(301)));
    }

    @Test
    void aDisconnectFencesTheSession() throws Exception
    {
        start(WAIT_NANOS * 6);
        final RdmaCmSessions.Link link = admit(401);
        final ScriptedConnection connection = (ScriptedConnection)answer(link.ticket().privateData(401));
        assertNull(fenced.poll(200, TimeUnit.MILLISECONDS), "connected, nothing to fence");
        connection.peerLeft = true;
        final String why = fenced.poll(WAIT_NANOS, TimeUnit.NANOSECONDS);
        assertEquals("401: its rdma_cm connection was disconnected", why);
        assertNull(fenced.poll(200, TimeUnit.MILLISECONDS), "fenced once");
        assertFalse(connection.closed, "the session's close closes the connection, not the watcher");
        sessions.removeFirst().close();
        assertTrue(connection.closed, "closing the session closes its connection (before its queue pair)");
    }

    @Test
    void aClientThatNeverConnectsIsFencedAtTheDeadline() throws Exception
    {
        start(TimeUnit.MILLISECONDS.toNanos(300));
        final RdmaCmSessions.Link link = admit(501);
        final String why = fenced.poll(WAIT_NANOS, TimeUnit.NANOSECONDS);
        assertEquals("501: it did not connect its queue pair through rdma_cm within 300 ms", why);
        assertEquals("rejected", answer(link.ticket().privateData(501)), "its ticket is void after the deadline");
    }

    @Test
    void closeStopsTheThreadAndTheListener()
    {
        start(WAIT_NANOS);
        cm.close();
        assertTrue(listener.closed);
        cm = null;
    }

    @Test
    void privateDataIsTheTicketsLayout()
    {
        start(WAIT_NANOS);
        final RdmaCmSessions.Link link = admit(601);
        final CmTicket.Request request = CmTicket.decodeRequest(link.ticket().privateData(601));
        assertEquals(601, request.sessionId());
        assertTrue(link.ticket().matches(request));
    }
}
