package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Drives a {@link ControlAgent} by hand in tests: sessions connected to {@link ControlPeer}s, duty cycles pumped. */
final class AgentDriver
{
    private AgentDriver()
    {
    }

    /** A session {@code id} whose queue pair is connected to {@code peer}'s, registered with {@code agent}. */
    static ServerSession connect(final ControlAgent agent, final ProtectionDomain pd, final CompletionQueue cq,
        final ControlPeer peer, final long id, final String name)
    {
        return connectUnder(agent, pd, cq, peer, id, name, 0);
    }

    /** As {@link #connect}, the session opened under a cluster map of epoch {@code epoch} (its writer: its id). */
    static ServerSession connectUnder(final ControlAgent agent, final ProtectionDomain pd, final CompletionQueue cq,
        final ControlPeer peer, final long id, final String name, final long epoch)
    {
        return connectAs(agent, pd, cq, peer, id, id, name, epoch);
    }

    /** As {@link #connectUnder}, the session of writer {@code writerId}. */
    static ServerSession connectAs(final ControlAgent agent, final ProtectionDomain pd, final CompletionQueue cq,
        final ControlPeer peer, final long id, final long writerId, final String name, final long epoch)
    {
        final ServerSession session = new ServerSession(id, writerId, name, pd,
            MessageHeaderDescriptor.MAX_MESSAGE_LENGTH);
        session.openedUnder(epoch);
        final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq, cq, 16, ServerSession.RECV_BUFFERS, 1, 1, 64));
        session.attach(qp, null);
        qp.modifyToInit(ConnectOptions.DEFAULT.withAccessFlags(AccessFlags.ALL_REMOTE));
        for (int i = 0; i < ServerSession.RECV_BUFFERS; i++)
        {
            assertTrue(session.postReceive(i));
        }
        qp.modifyToRtr(peer.endpoint(), ConnectOptions.DEFAULT);
        qp.modifyToRts(ConnectOptions.DEFAULT);
        peer.connect(qp.localEndpoint());
        agent.register(session);
        agent.doWork();
        return session;
    }

    /** Runs duty cycles until {@code done}; the transport delivers on its own threads, so this may take a few. */
    static void pumpUntil(final ControlAgent agent, final BooleanSupplier done, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting for " + what);
            }
            if (agent.doWork() == 0)
            {
                Thread.yield();
            }
        }
    }

    /** The next message {@code peer} receives, pumping the agent meanwhile. */
    static ControlMessage awaitReply(final ControlAgent agent, final ControlPeer peer)
    {
        final ControlMessage[] reply = new ControlMessage[1];
        pumpUntil(agent, () -> (reply[0] = peer.poll()) != null, "a reply");
        return reply[0];
    }

    /** SENDs {@code message} from {@code peer} and returns the node's reply, pumping the agent meanwhile. */
    static ControlMessage request(final ControlAgent agent, final ControlPeer peer, final ControlMessage message)
    {
        peer.send(message);
        return awaitReply(agent, peer);
    }
}
