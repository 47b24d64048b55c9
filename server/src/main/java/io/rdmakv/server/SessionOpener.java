package io.rdmakv.server;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.protocol.CmTicket;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.bootstrap.Admission;
import io.rdmakv.server.bootstrap.BootstrapListener;
import io.rdmakv.server.bootstrap.PeerEndpoint;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ControlAgent;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerSession;
import io.rdmakv.server.region.Region;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.agrona.CloseHelper;

import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Opens an admitted client's session: a queue pair connected to the client's own (on the host its HELLO
 * came from, within the provider's handshake deadline), registered with the control agent, and the HELLO_OK
 * that tells the client where the region is. How the session ends (departure, lease expired, a bad frame)
 * is handed to the control agent, which owns session state.
 */
final class SessionOpener
{
    private static final System.Logger LOG = System.getLogger(SessionOpener.class.getName());

    private final ServerConfig config;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final Region region;
    private final ControlAgent agent;
    private final Supplier<ClusterMap> clusterMap;
    private final java.util.function.BooleanSupplier serving;
    /** Whether HELLO_OK tells clients to send their index CASes as SLOT_CAS (the node-assisted write path). */
    private final boolean nodeAssistedWrites;
    private final RdmaCmSessions cm;
    private final io.rdmakv.server.region.MapArea mapArea;
    private final AtomicLong nextSessionId = new AtomicLong(ThreadLocalRandom.current().nextLong(1, 1L << 40));

    SessionOpener(final ServerConfig config, final ProtectionDomain pd, final CompletionQueue cq, final Region region,
        final ControlAgent agent, final Supplier<ClusterMap> clusterMap, final java.util.function.BooleanSupplier serving,
        final boolean nodeAssistedWrites, final RdmaCmSessions cm, final io.rdmakv.server.region.MapArea mapArea)
    {
        this.mapArea = mapArea;
        this.nodeAssistedWrites = nodeAssistedWrites;
        this.cm = cm;
        this.serving = serving;
        this.config = config;
        this.pd = pd;
        this.cq = cq;
        this.region = region;
        this.agent = agent;
        this.clusterMap = clusterMap;
    }

    /**
     * HELLO_OK and the session's end handler, or HELLO_REFUSED saying why (nothing is left behind). The
     * session is opened under the map {@code clusterMap} supplies now, which HELLO_OK carries, and records
     * its epoch (a newer map fences it); while it supplies none (a node of a ZooKeeper cluster in no map yet,
     * or no more) the HELLO is refused with {@link ReasonCode#NOT_IN_CLUSTER}.
     */
    BootstrapListener.Outcome open(final HelloMessage hello, final Socket socket)
    {
        final String peer = String.valueOf(socket.getRemoteSocketAddress());
        final ClusterMap map = clusterMap.get();
        if (map == null)
        {
            return Admission.refused(ReasonCode.NOT_IN_CLUSTER, "node " + config.nodeId() + " is in no cluster map " +
                "(not yet placed, or removed): ask another node of the cluster");
        }
        final QueuePairEndpoint remote = PeerEndpoint.pin(hello.endpoint(), socket.getInetAddress());
        if (remote == null && cm == null)
        {
            LOG.log(System.Logger.Level.WARNING, "refused " + peer + ": its queue pair endpoint names another host");
            return Admission.refused(ReasonCode.UNEXPECTED_MESSAGE, PeerEndpoint.NOT_HELLO_HOST);
        }
        ServerSession session = null;
        RdmaCmSessions.Link link = null;
        try
        {
            session = new ServerSession(nextSessionId.getAndIncrement(), hello.writerId(), peer, pd,
                MessageHeaderDescriptor.MAX_MESSAGE_LENGTH);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq, cq, 16, ServerSession.RECV_BUFFERS, 1,
                1, 64));
            session.attach(qp, null);
            if (cm != null)
            {
                // rdma_cm: the queue pair stays in RESET; the client connects it with the ticket HELLO_OK carries,
                // and the listener posts its receives in INIT (RdmaCmSessions)
                link = cm.expect(session);
                session.attachConnection(link);
                return opened(hello, socket, session, qp, map, link.ticket());
            }
            qp.modifyToInit(ConnectOptions.DEFAULT.withAccessFlags(AccessFlags.ALL_REMOTE));
            for (int i = 0; i < ServerSession.RECV_BUFFERS; i++)
            {
                if (!session.postReceive(i))
                {
                    throw new IllegalStateException("cannot post receive buffers");
                }
            }
            try
            {
                // tcp: connects to the client's device and waits for its answer, all within the provider's
                // handshake deadline (VerbsConfig.handshakeTimeoutMs): a peer that accepts the connection and
                // never answers holds no session half-open past it. ibverbs: programs the NIC, nothing more.
                qp.modifyToRtr(remote, ConnectOptions.DEFAULT);
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "cannot connect the queue pair of " + peer + ": " +
                    e.getMessage());
                CloseHelper.quietClose(session);
                return Admission.refused(ReasonCode.INTERNAL, PeerEndpoint.CANNOT_CONNECT);
            }
            qp.modifyToRts(ConnectOptions.DEFAULT);
            return opened(hello, socket, session, qp, map, null);
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot open a session for " + peer + ": " + e.getMessage());
            if (link != null)
            {
                cm.cancel(link);
            }
            CloseHelper.quietClose(session);
            return Admission.refused(ReasonCode.INTERNAL, "cannot open a session: " + e.getMessage());
        }
    }

    /** Registers the session with the agent and answers HELLO_OK ({@code ticket}: through rdma_cm, else null). */
    private BootstrapListener.Outcome opened(final HelloMessage hello, final Socket socket, final ServerSession session,
        final QueuePair qp, final ClusterMap map, final CmTicket ticket)
    {
        // Only an open session owns the bootstrap socket: a failed one must still answer HELLO_REFUSED on it.
        session.attach(qp, socket);
        session.openedUnder(map.epoch());
        agent.register(session);
        final ServerSession opened = session;
        final HelloOkMessage ok = new HelloOkMessage(hello.requestId(), MessageHeaderDescriptor.PROTOCOL_VERSION,
            config.nodeId(), qp.localEndpoint(),
            new RemoteRegion(region.indexRegion().address(), region.indexRegion().length(),
                region.indexRegion().rkey()),
            new RemoteRegion(region.dataRegion().address(), region.dataRegion().length(),
                region.dataRegion().rkey()),
            region.geometry(), map, session.id(), config.graceNanos(),
            (int)TimeUnit.NANOSECONDS.toMillis(config.heartbeatIntervalNanos()),
            nodeAssistedWrites ? HelloOkMessage.NODE_ASSISTED_WRITES : 0, ticket, mapArea.remote());
        return new BootstrapListener.Outcome(ok, end ->
        {
            switch (end.kind())
            {
                case CLOSED -> agent.departed(opened);
                case LEASE_EXPIRED -> agent.lost(opened, ServerCounter.LEASES_EXPIRED, end.detail());
                case BAD_FRAME -> agent.lost(opened, ServerCounter.MALFORMED_MESSAGES, end.detail());
            }
        }, new io.rdmakv.server.bootstrap.HeartbeatAnswers(serving, config.heartbeatIntervalNanos()),
            new io.rdmakv.server.bootstrap.HeartbeatEpochs()
            {
                @Override
                public void reported(final long epoch)
                {
                    opened.reported(epoch);
                }

                @Override
                public long applied()
                {
                    return mapArea.epoch();
                }
            });
    }

}
