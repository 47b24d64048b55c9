package io.rdmakv.peer;

import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.DamageScanOkMessage;
import io.rdmakv.common.protocol.FenceWritersMessage;
import io.rdmakv.common.protocol.FenceWritersOkMessage;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.ScrubMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ConnectionManager;
import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.resource.VerbsException;
import org.agrona.CloseHelper;

import javax.net.ssl.SSLContext;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.concurrent.TimeUnit;

/**
 * One session with one node, without a data path of its own: the bootstrap connection (HELLO, then kept open:
 * the node treats its end as the session's lease), a connected queue pair with its registered memory, the
 * control calls over SEND/RECV ({@link ControlChannel}), and the heartbeats that keep the node's lease and
 * this side's {@link ReadLease}. The client's lanes build their data path on one; a node's copy, sweep and
 * scrub sessions with its peers post {@link RemoteReads} chains on one. Owned by one thread at a time, except
 * {@link #heartbeatIfDue}, which a housekeeping thread may call while the owner runs an operation.
 */
public final class NodeSession implements AutoCloseable
{
    /** Work requests one doorbell may carry: the send queue's depth. */
    public static final int SEND_QUEUE_DEPTH = 64;
    /**
     * The deepest send queue a {@link Shape} may ask for: well inside every device's {@code max_qp_wr} this runs on
     * (the {@code tcp} provider's 16,384; rxe's and ConnectX's are larger).
     */
    public static final int MAX_SEND_QUEUE_DEPTH = 1024;

    private final InetSocketAddress address;
    private final int sendQueueDepth;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final MemoryRegion mr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final ConnectionManager.Connection cmConnection;
    private final SessionIo io;
    private final ControlChannel control;
    private final BootstrapConnection bootstrap;
    private final HelloOkMessage hello;
    private final long heartbeatIntervalNanos;
    private final ReadLease lease;
    private long heartbeats;
    private long lastHeartbeatNanos;
    /** See {@link #nodeEpoch()}: written by the answers' reader thread only. */
    private volatile long nodeEpoch;
    private volatile boolean closed;
    /** Held while the answers' reader moves the queue pair to ERR, and while {@link #close} marks it closed. */
    private final Object qpGuard = new Object();

    /**
     * How a session is opened: where its control area lies in its memory, what its I/O counts, and how deep its send
     * queue is (work requests in flight at once, {@link #SEND_QUEUE_DEPTH} unless a caller posts several chains
     * before waiting: a primary's partition freeze).
     */
    public record Shape(int memoryLength, int controlOffset, IoCounters counters, int sendQueueDepth)
    {
        /** A peer's session: the control area alone, nothing counted. */
        public static final Shape PEER = new Shape(ControlArea.LENGTH, 0, IoCounters.NONE);

        public Shape
        {
            if (controlOffset < 0 || controlOffset + ControlArea.LENGTH > memoryLength)
            {
                throw new IllegalArgumentException("control area at " + controlOffset + " outside " + memoryLength +
                    " bytes");
            }
            if (sendQueueDepth < SEND_QUEUE_DEPTH || sendQueueDepth > MAX_SEND_QUEUE_DEPTH)
            {
                throw new IllegalArgumentException("a send queue of " + sendQueueDepth + " work requests: " +
                    SEND_QUEUE_DEPTH + ".." + MAX_SEND_QUEUE_DEPTH);
            }
        }

        /** A send queue of {@link #SEND_QUEUE_DEPTH}. */
        public Shape(final int memoryLength, final int controlOffset, final IoCounters counters)
        {
            this(memoryLength, controlOffset, counters, SEND_QUEUE_DEPTH);
        }

        /** This shape with a send queue of {@code depth} work requests. */
        public Shape withSendQueueDepth(final int depth)
        {
            return new Shape(memoryLength, controlOffset, counters, depth);
        }
    }

    /**
     * Sends the HELLO and reads the reply. A plaintext connection the node closes before any reply is, most
     * often, one over its connection limit (it closes those at accept, unread): said so, instead of a bare
     * end of stream. (With TLS the handshake reports it; {@link TlsFailures} words that.)
     */
    private static ControlMessage hello(final BootstrapConnection connection, final HelloMessage hello,
        final boolean tls) throws IOException
    {
        try
        {
            return connection.call(hello);
        }
        catch (final EOFException | SocketException e)
        {
            if (tls)
            {
                throw e;
            }
            throw new IOException("the node closed the connection before answering HELLO (a node holding as many " +
                "connections as it takes, kvserver --max-connections, closes new ones at once; retry later): " +
                e, e);
        }
    }

    private NodeSession(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final long writerId, final byte[] authToken, final SSLContext tls, final long connectTimeoutNanos,
        final long opTimeoutNanos, final WaitStrategy waitStrategy, final Shape shape, final ConnectionSetup setup)
    {
        this.address = address;
        this.sendQueueDepth = shape.sendQueueDepth();
        // --cm rdmacm on tcp, or exchange on an iWARP device: refused before anything is made
        final boolean throughCm = setup.usesConnectionManager(context);
        final long deadline = System.nanoTime() + connectTimeoutNanos;
        mem = arena.allocate(shape.memoryLength(), 4096);
        MemoryRegion registered = null;
        CompletionQueue createdCq = null;
        QueuePair createdQp = null;
        SessionIo createdIo = null;
        ConnectionManager.Connection cm = null;
        BootstrapConnection connection = null;
        long helloSentAt = 0;
        final HelloOkMessage ok;
        try
        {
            registered = pd.registerMemory(mem, AccessFlags.LOCAL_WRITE);
            createdCq = context.createCompletionQueue(shape.sendQueueDepth() + ControlArea.RECV_BUFFERS);
            createdQp = pd.createQueuePair(new QueuePairConfig(createdCq, createdCq, shape.sendQueueDepth(),
                ControlArea.RECV_BUFFERS, 1, 1, 64));
            createdIo = new SessionIo(createdQp, createdCq, registered, shape.controlOffset(), shape.counters(),
                opTimeoutNanos, waitStrategy);
            if (!throughCm)
            {
                // ready for the node's RTR toward it (exchange); through rdma_cm the queue pair stays in RESET
                // until the connect, which posts the receives once it is in INIT (a node on exchange after all
                // is refused below). A client on auto follows the node: a node through rdma_cm finds this
                // queue pair in INIT, which rdma_cm takes as it is.
                createdQp.modifyToInit(ConnectOptions.DEFAULT);
                createdIo.postAllReceives();
            }
            connection = BootstrapConnection.open(address, connectTimeoutNanos, tls);
            helloSentAt = System.nanoTime();
            final ControlMessage reply = hello(connection, new HelloMessage(1, writerId, authToken,
                createdQp.localEndpoint()), tls != null);
            if (CodedRefusalMessage.as(MessageType.HELLO_REFUSED, reply) instanceof CodedRefusalMessage refused)
            {
                throw new SessionRefusedException(address, refused.code(), refused.text());
            }
            if (!(reply instanceof HelloOkMessage helloOk))
            {
                throw new IOException("node " + address + " answered HELLO with " + reply.type());
            }
            ok = helloOk;
            if (ok.cmTicket() != null)
            {
                cm = connectThroughCm(context, address, createdQp, createdIo, ok, setup, throughCm, deadline);
            }
            else if (throughCm)
            {
                throw new SessionRefusedException(address, ReasonCode.UNEXPECTED_MESSAGE.code(),
                    "node " + address + " connects queue pairs by exchanging their endpoints (kvserver --cm " +
                    "exchange, or auto on an InfiniBand or RoCE device), but this side connects through rdma_cm (" +
                    (setup == ConnectionSetup.RDMACM ? "--cm rdmacm" : "device " + context.deviceName() +
                    " is iWARP") + "): run both with the same --cm, or auto");
            }
            else
            {
                createdQp.modifyToRtr(ok.serverEndpoint(), ConnectOptions.DEFAULT);
                createdQp.modifyToRts(ConnectOptions.DEFAULT);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            CloseHelper.quietClose(connection);
            CloseHelper.quietClose(cm);
            CloseHelper.quietClose(createdQp);
            CloseHelper.quietClose(createdCq);
            CloseHelper.quietClose(registered);
            CloseHelper.quietClose(createdIo);
            arena.close();
            if (e instanceof SessionRefusedException refused)
            {
                throw refused;
            }
            final String tlsReason = tls != null && e instanceof IOException ioe ?
                TlsFailures.describe(ioe, connection != null) : null;
            if (tlsReason != null)
            {
                throw SessionRefusedException.tls(address, tlsReason);
            }
            if (e instanceof MalformedMessageException m && m.kind() == MalformedMessageException.Kind.BAD_VERSION)
            {
                throw SessionRefusedException.incompatible(address, m.getMessage());
            }
            throw new SessionFailedException(address, e);
        }
        hello = ok;
        mr = registered;
        cq = createdCq;
        qp = createdQp;
        cmConnection = cm;
        io = createdIo;
        bootstrap = connection;
        final long openedAtMillis = System.currentTimeMillis();
        io.describedBy(() -> describeForFailure(openedAtMillis));
        control = new ControlChannel(io, mem, shape.counters(), Math.max(opTimeoutNanos, TimeUnit.SECONDS.toNanos(5)));
        heartbeatIntervalNanos = TimeUnit.MILLISECONDS.toNanos(Integer.toUnsignedLong(hello.heartbeatIntervalMs()));
        lastHeartbeatNanos = System.nanoTime();
        final boolean replicated = hello.clusterMap() != null && hello.clusterMap().replicationFactor() > 1;
        lease = new ReadLease(HeartbeatMessage.READ_LEASE_INTERVALS * heartbeatIntervalNanos,
            replicated && heartbeatIntervalNanos > 0, helloSentAt);
        bootstrap.readAnswers((heartbeat, nodeEpoch) ->
        {
            lease.answered(heartbeat);
            nodeEpoch(nodeEpoch);
        }, this::connectionEnded, "rdmakv-lease-" + address.getPort());
    }

    /**
     * The queue pair connected through rdma_cm as the node's HELLO_OK asks: a connect request to the node's
     * listener carrying the session id and the session's token, within what is left of the connect timeout.
     */
    private static ConnectionManager.Connection connectThroughCm(final Context context,
        final InetSocketAddress address, final QueuePair qp,
        final SessionIo io, final HelloOkMessage ok, final ConnectionSetup setup, final boolean receivesDeferred,
        final long deadline)
    {
        final ConnectionManager cm = context.connectionManager();
        if (setup == ConnectionSetup.EXCHANGE || cm == null)
        {
            throw new SessionRefusedException(address,
                ReasonCode.UNEXPECTED_MESSAGE.code(), "node " + address +
                " connects queue pairs through rdma_cm (kvserver --cm rdmacm, or auto on an iWARP device), but " +
                (cm == null ? "the " + context.providerName() + " transport has no rdma_cm: use --transport ibverbs" :
                "this side asks for the exchange (--cm exchange): use --cm auto or rdmacm"));
        }
        try
        {
            return cm.connect(qp, ok.cmTicket().socketAddress(), ok.cmTicket().privateData(ok.sessionId()),
                ConnectOptions.DEFAULT, Math.max(1, deadline - System.nanoTime()), initialized ->
                {
                    if (receivesDeferred)
                    {
                        io.postAllReceives();
                    }
                });
        }
        catch (final VerbsException e)
        {
            // still a VerbsException: a rejection (the session was fenced meanwhile) is worth another try
            throw new VerbsException("rdma_cm", "connecting the queue pair through rdma_cm to " +
                ok.cmTicket().socketAddress() + ", where node " + address + " listens: " + e.getMessage() +
                " (that address must be on an interface with an RDMA device and routable from here: kvserver " +
                "--cm-address sets it; --cm exchange on both sides does without rdma_cm on InfiniBand and RoCE)", e);
        }
    }

    /**
     * Opens a session (its bootstrap connection over TLS with {@code tls}, plaintext when null), or throws
     * {@link SessionRefusedException} / {@link SessionFailedException}; its queue pair connected as the node
     * chooses ({@link ConnectionSetup#AUTO}).
     */
    public static NodeSession open(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final long writerId, final byte[] authToken, final SSLContext tls, final long connectTimeoutNanos,
        final long opTimeoutNanos, final WaitStrategy waitStrategy, final Shape shape)
    {
        return open(context, pd, address, writerId, authToken, tls, connectTimeoutNanos, opTimeoutNanos,
            waitStrategy, shape, ConnectionSetup.AUTO);
    }

    /**
     * As {@link #open(Context, ProtectionDomain, InetSocketAddress, long, byte[], SSLContext, long, long,
     * WaitStrategy, Shape)}, connecting the queue pair as {@code setup} says: {@code auto} as the node chose,
     * {@code rdmacm} or {@code exchange} only so (a node that chose the other is refused, saying so).
     */
    public static NodeSession open(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final long writerId, final byte[] authToken, final SSLContext tls, final long connectTimeoutNanos,
        final long opTimeoutNanos, final WaitStrategy waitStrategy, final Shape shape, final ConnectionSetup setup)
    {
        return new NodeSession(context, pd, address, writerId, authToken, tls, connectTimeoutNanos, opTimeoutNanos,
            waitStrategy, shape, setup);
    }

    /**
     * For the log line of the session's first failure ({@link SessionIo#describedBy}): the node, the session id, when
     * it opened, and the rdma_cm connection's history (its events read first: a DISCONNECTED the node sent).
     */
    private String describeForFailure(final long openedAtMillis)
    {
        String cm = "";
        if (cmConnection != null)
        {
            try
            {
                cmConnection.pollDisconnected(0);
            }
            catch (final RuntimeException e)
            {
                cm = "(reading its rdma_cm events: " + e.getMessage() + ") ";
            }
            cm += cmConnection.history();
        }
        return "session " + hello.sessionId() + " with node " + address + ", opened " +
            java.time.Instant.ofEpochMilli(openedAtMillis) + (cm.isEmpty() ? "" : "; " + cm);
    }

        public HelloOkMessage hello()
    {
        return hello;
    }

    /** Work requests its send queue holds: in flight at once, at most ({@link Shape#sendQueueDepth()}). */
    public int sendQueueDepth()
    {
        return sendQueueDepth;
    }

    public InetSocketAddress address()
    {
        return address;
    }

    /** The session's registered memory (its owner's layout, with the control area where its shape says). */
    public MemorySegment memory()
    {
        return mem;
    }

    /** The session's posting and waiting. */
    public SessionIo io()
    {
        return io;
    }

    public ControlChannel control()
    {
        return control;
    }

    /**
     * The newest map epoch the node said it has applied, in its heartbeat answers (0 before the first answer). Set
     * by the answers' reader; a node that says a newer epoch than this session's map has its map area read.
     */
    public long nodeEpoch()
    {
        return nodeEpoch;
    }

    private void nodeEpoch(final long epoch)
    {
        if (epoch > nodeEpoch)
        {
            nodeEpoch = epoch;
        }
    }

    /** The lease on the node's answers to heartbeats: one-sided reads of a replicated node run only under it. */
    public ReadLease lease()
    {
        return lease;
    }

    /** What the session was waiting for when it timed out, or empty. */
    public String timedOutWaitingFor()
    {
        return io.failedWaitingFor();
    }

    /** True when the session can no longer be used (a failure broke it, or it was closed). */
    public boolean isBroken()
    {
        return closed || io.failure() != 0;
    }

    // ---- the lease ----------------------------------------------------------------------------

    /**
     * Sends a HEARTBEAT on the bootstrap connection when the node's interval has passed since the last one
     * (a housekeeping thread, or the owner between steps; never within an operation, so an operation in
     * progress does not delay it). Returns true when one was sent. A connection the node closed (it fenced
     * this session) only fails the send here; the answers' reader sees it end and fails the queue pair.
     */
    public boolean heartbeatIfDue(final long nowNanos)
    {
        return heartbeatIfDue(nowNanos, OPENED_UNDER);
    }

    /**
     * {@link #heartbeatIfDue(long, java.util.function.LongSupplier)}'s report of a node's session with a peer (a
     * copy, sweep, scrub or grant check, which acts under its own node's map): the epoch it was opened under, or the
     * newer one the peer says it applied (both nodes follow the same maps; the session is fenced at the next change
     * that fences).
     */
    private static final java.util.function.LongSupplier OPENED_UNDER = () -> -1L;

    /**
     * As {@link #heartbeatIfDue(long)}, the heartbeat saying {@code oldestEpoch}: the oldest map epoch under which an
     * operation of this client may still be running on the node (asked only when a heartbeat is due; -1: the epoch
     * of the map the session was opened under, or the newer one the node said it applied).
     */
    public boolean heartbeatIfDue(final long nowNanos, final java.util.function.LongSupplier oldestEpoch)
    {
        if (closed || heartbeatIntervalNanos == 0 || nowNanos - lastHeartbeatNanos < heartbeatIntervalNanos)
        {
            return false;
        }
        lastHeartbeatNanos = nowNanos;
        try
        {
            long epoch = oldestEpoch.getAsLong();
            if (epoch < 0)
            {
                epoch = Math.max(hello.clusterMap() == null ? 0 : hello.clusterMap().epoch(), nodeEpoch);
            }
            lease.sending(++heartbeats, nowNanos); // read before the send: the lease runs no later than it may
            bootstrap.send(new HeartbeatMessage(heartbeats, epoch));
            return true;
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    // ---- control calls ----------------------------------------------------------------------

    /** True when the node announced it is shutting down (looks for notices first, without waiting). */
    public boolean shutdownNoticed()
    {
        control.pollNotices();
        return control.shutdownNoticed();
    }

    /** STATS: the node's memory, index and client figures (control path; allocates); null on failure. */
    public StatsOkMessage stats()
    {
        final ControlMessage reply = control.call(new StatsMessage(control.nextRequestId()));
        return reply instanceof StatsOkMessage ok ? ok : null;
    }

    /**
     * DAMAGE_SCAN: one page of the node's damaged slots, from bucket group {@code fromGroup} (control path;
     * allocates); null on failure.
     */
    public DamageScanOkMessage scanDamage(final long fromGroup)
    {
        final ControlMessage reply =
            control.call(new DamageScanMessage(control.nextRequestId(), fromGroup, Integer.MAX_VALUE));
        return reply instanceof DamageScanOkMessage ok ? ok : null;
    }

    /**
     * SCRUB: has the node (a group's primary) scrub its backups now and waits up to {@code timeoutNanos} for what
     * it did (control path; allocates). Returns SCRUB_OK, the node's ERROR, or null when it did not answer.
     */
    public ControlMessage scrub(final long timeoutNanos)
    {
        return control.call(new ScrubMessage(control.nextRequestId()), timeoutNanos);
    }

    /**
     * REBALANCE: hands the operator's move request ({@code json}) to the node, which writes it to its cluster's
     * {@code rebalance/request} or, with {@code dryRun}, judges it; waits up to {@code timeoutNanos} (control path;
     * allocates). Returns REBALANCE_OK, the node's ERROR, or null when it did not answer.
     */
    public ControlMessage rebalance(final boolean dryRun, final String json, final long timeoutNanos)
    {
        return control.call(new RebalanceMessage(control.nextRequestId(), dryRun, json), timeoutNanos);
    }

    /**
     * FENCE_WRITERS: has the node fence every session of {@code writers} open now (control path; allocates).
     * Returns the sessions it fenced, or -1 when it did not answer that it had.
     */
    public int fenceWriters(final long[] writers)
    {
        final ControlMessage reply = control.call(new FenceWritersMessage(control.nextRequestId(), writers));
        return reply instanceof FenceWritersOkMessage ok ? ok.fenced() : -1;
    }

    /**
     * The node closed the bootstrap connection: it ended the session (a fence, a lease run out, its shutdown) or it
     * is gone, and it has taken its queue pair down with it. Over RC nothing else tells this end until it posts
     * again, so an operation waiting for a control reply would wait out its whole timeout (seen across the Soft-RoCE
     * wire: writes stalled for the 120 s operation timeout after a fencing map change). Moving the queue pair to ERR
     * flushes what is posted: that operation ends now with CONNECTION_LOST, and the client opens a new session.
     * Runs on the answers' reader thread; the guard keeps it from racing {@link #close}.
     */
    private void connectionEnded()
    {
        synchronized (qpGuard)
        {
            if (closed)
            {
                return;
            }
            try
            {
                qp.modifyToError();
            }
            catch (final RuntimeException e)
            {
                // the queue pair is failing already: its operations end on their own
            }
        }
    }

    /** Says BYE (when the session still works) and closes it. */
    @Override
    public void close()
    {
        close(null);
    }

    /**
     * Says BYE (when the session still works) and closes the connection, the queue pair and the registration,
     * then {@code dependent} (what its owner built on the session's memory and I/O: its work requests), then
     * the session's own I/O and memory. Idempotent.
     */
    public void close(final AutoCloseable dependent)
    {
        if (closed)
        {
            return;
        }
        io.closing();
        if (io.failure() == 0)
        {
            control.post(new ByeMessage(control.nextRequestId()));
        }
        synchronized (qpGuard)
        {
            closed = true; // after this, connectionEnded leaves the queue pair alone
        }
        CloseHelper.quietClose(bootstrap);
        CloseHelper.quietClose(cmConnection); // before its queue pair
        CloseHelper.quietClose(qp);
        CloseHelper.quietClose(cq);
        CloseHelper.quietClose(mr);
        CloseHelper.quietClose(dependent);
        CloseHelper.quietClose(control);
        CloseHelper.quietClose(io);
        arena.close();
    }
}
