package io.rdmakv.client.internal;

import io.rdmakv.client.WaitStrategy;
import org.agrona.CloseHelper;
import org.agrona.concurrent.SystemNanoClock;
import io.rdmakv.common.protocol.AllocFailedMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.DamageScanOkMessage;
import io.rdmakv.common.protocol.FenceWritersMessage;
import io.rdmakv.common.protocol.FenceWritersOkMessage;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.HelloRefusedMessage;
import io.rdmakv.common.protocol.MalformedMessageException;
import io.rdmakv.common.protocol.ScrubMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;

import javax.net.ssl.SSLContext;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One session with one node: the bootstrap connection (HELLO, then kept open: the server treats its
 * end as the session's lease), a connected queue pair with its registered buffers, the control calls
 * over SEND/RECV ({@link ControlChannel}), the lane's share of the node's space ({@link SpaceLease}), and
 * the {@link Lane} that runs the data path on it. Ownership flows one way: the session builds and closes
 * them; none of them calls back into it.
 */
public final class Session implements AutoCloseable
{
    static final int SEND_QUEUE_DEPTH = 64;

    private final InetSocketAddress address;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final MemoryRegion mr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final LaneCounters counters = new LaneCounters();
    private final LaneIo io;
    private final LaneRequests requests;
    private final ControlChannel control;
    private final SpaceLease space;
    private final BootstrapConnection bootstrap;
    private final HelloOkMessage hello;
    private final Lane lane;
    private final ReentrantLock use = new ReentrantLock();
    private final long heartbeatIntervalNanos;
    private final ReadLease lease;
    private long heartbeats;
    private long lastHeartbeatNanos;
    private volatile boolean closed;

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

    private Session(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final long writerId, final byte[] authToken, final SSLContext tls, final long connectTimeoutNanos,
        final long opTimeoutNanos, final WaitStrategy waitStrategy)
    {
        this.address = address;
        mem = arena.allocate(LaneBuffers.LENGTH, 4096);
        MemoryRegion registered = null;
        CompletionQueue createdCq = null;
        QueuePair createdQp = null;
        BootstrapConnection connection = null;
        long helloSentAt = 0;
        try
        {
            registered = pd.registerMemory(mem, AccessFlags.LOCAL_WRITE);
            createdCq = context.createCompletionQueue(SEND_QUEUE_DEPTH + LaneBuffers.RECV_BUFFERS);
            createdQp = pd.createQueuePair(new QueuePairConfig(createdCq, createdCq, SEND_QUEUE_DEPTH,
                LaneBuffers.RECV_BUFFERS, 1, 1, 64));
            createdQp.modifyToInit(ConnectOptions.DEFAULT);
            io = new LaneIo(createdQp, createdCq, registered, counters, opTimeoutNanos, waitStrategy);
            io.postAllReceives();
            connection = BootstrapConnection.open(address, connectTimeoutNanos, tls);
            helloSentAt = System.nanoTime();
            final ControlMessage reply = hello(connection, new HelloMessage(1, writerId, authToken,
                createdQp.localEndpoint()), tls != null);
            if (reply instanceof HelloRefusedMessage refused)
            {
                throw new SessionRefusedException(address, refused.code(), refused.text());
            }
            if (!(reply instanceof HelloOkMessage ok))
            {
                throw new IOException("node " + address + " answered HELLO with " + reply.type());
            }
            hello = ok;
            createdQp.modifyToRtr(ok.serverEndpoint(), ConnectOptions.DEFAULT);
            createdQp.modifyToRts(ConnectOptions.DEFAULT);
        }
        catch (final IOException | RuntimeException e)
        {
            CloseHelper.quietClose(connection);
            CloseHelper.quietClose(createdQp);
            CloseHelper.quietClose(createdCq);
            CloseHelper.quietClose(registered);
            arena.close();
            if (e instanceof SessionRefusedException refused)
            {
                throw refused;
            }
            final String tlsReason = tls != null && e instanceof IOException io ?
                TlsFailures.describe(io, connection != null) : null;
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
        mr = registered;
        cq = createdCq;
        qp = createdQp;
        bootstrap = connection;
        final RemoteIndex remote = new RemoteIndex(hello.indexRegion().address(), hello.indexRegion().rkey(),
            hello.dataRegion().address(), hello.dataRegion().rkey(), hello.geometry());
        requests = new LaneRequests(io, remote, mem);
        control = new ControlChannel(io, requests, mem, counters,
            Math.max(opTimeoutNanos, TimeUnit.SECONDS.toNanos(5)));
        space = new SpaceLease(control, counters, SystemNanoClock.INSTANCE);
        lane = new Lane(mem, requests, remote, space, control, counters, hello.sessionId(), hello.graceNanos(),
            SystemNanoClock.INSTANCE);
        heartbeatIntervalNanos = TimeUnit.MILLISECONDS.toNanos(Integer.toUnsignedLong(hello.heartbeatIntervalMs()));
        lastHeartbeatNanos = System.nanoTime();
        final boolean replicated = hello.clusterMap() != null && hello.clusterMap().replicationFactor() > 1;
        lease = new ReadLease(HeartbeatMessage.READ_LEASE_INTERVALS * heartbeatIntervalNanos,
            replicated && heartbeatIntervalNanos > 0, helloSentAt);
        lane.readUnder(lease);
        lane.writeUnder(hello.clusterMap() == null ? 0 : (int)hello.clusterMap().epoch());
        bootstrap.readAnswers(lease::answered, "rdmakv-lease-" + address.getPort());
    }

    /**
     * Opens a session (its bootstrap connection over TLS with {@code tls}, plaintext when null), or throws
     * {@link SessionRefusedException} / {@link SessionFailedException}.
     */
    public static Session open(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final long writerId, final byte[] authToken, final SSLContext tls, final long connectTimeoutNanos,
        final long opTimeoutNanos, final WaitStrategy waitStrategy)
    {
        return new Session(context, pd, address, writerId, authToken, tls, connectTimeoutNanos, opTimeoutNanos,
            waitStrategy);
    }

    /** Shares the client's slot cache with this session's lane (before its first operation). */
    public void useCache(final SlotCache cache)
    {
        lane.useCache(cache);
    }

    /**
     * What the cached slot addresses of this node depend on: where its index is (address, length, rkey)
     * and where its data area is. A node that restarted with a new region has another one.
     */
    public List<Object> regionIdentity()
    {
        return List.of(hello.indexRegion(), hello.dataRegion().address(), hello.dataRegion().length(),
            hello.geometry());
    }

    public Lane lane()
    {
        return lane;
    }

    public HelloOkMessage hello()
    {
        return hello;
    }

    public InetSocketAddress address()
    {
        return address;
    }

    public LaneCounters counters()
    {
        return counters;
    }

    /** The lane's posting and waiting, for {@link RemoteReads} (whose caller holds the session alone). */
    LaneIo io()
    {
        return io;
    }

    /**
     * Takes the session for one operation (its owning thread; uncontended unless the janitor holds it for a
     * moment). Every {@link #enter()} is matched by {@link #exit()}.
     */
    public void enter()
    {
        use.lock();
    }

    /** Takes the session only if nobody uses it now (the janitor's way: it never waits for a lane). */
    public boolean tryEnter()
    {
        return use.tryLock();
    }

    public void exit()
    {
        use.unlock();
    }

    /**
     * For the janitor: sends the lane's due FREEs if nobody uses the lane now (never waits for it). Returns
     * false when the lane was in use, broken or closed.
     */
    public boolean sendDueFrees()
    {
        return SpaceLease.sendDueIfIdle(use, space, () -> !isBroken());
    }

    /** Why the node last refused this session space (quota or a full node), or null. */
    public AllocFailedMessage spaceRefusal()
    {
        return space.refusal();
    }

    /** What the lane was waiting for when it timed out, or empty. */
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
     * (the janitor's thread, every tick; never the lane, so an operation in progress does not delay it).
     * Returns true when one was sent. A connection the node closed (it fenced this session) only fails the
     * send: the session's next operation fails on its own.
     */
    public boolean heartbeatIfDue(final long nowNanos)
    {
        if (closed || heartbeatIntervalNanos == 0 || nowNanos - lastHeartbeatNanos < heartbeatIntervalNanos)
        {
            return false;
        }
        lastHeartbeatNanos = nowNanos;
        try
        {
            lease.sending(++heartbeats, nowNanos); // read before the send: the lease runs no later than it may
            bootstrap.send(new HeartbeatMessage(heartbeats));
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
     * FENCE_WRITERS: has the node fence every session of {@code writers} open now (control path; allocates).
     * Returns the sessions it fenced, or -1 when it did not answer that it had.
     */
    public int fenceWriters(final long[] writers)
    {
        final ControlMessage reply = control.call(new FenceWritersMessage(control.nextRequestId(), writers));
        return reply instanceof FenceWritersOkMessage ok ? ok.fenced() : -1;
    }

    /** Closes the session; waits for a janitor duty that holds it (never for long: duties do not wait). */
    @Override
    public void close()
    {
        use.lock();
        try
        {
            closeHeld();
        }
        finally
        {
            use.unlock();
        }
    }

    private void closeHeld()
    {
        if (closed)
        {
            return;
        }
        if (io.failure() == 0)
        {
            space.flush();
            control.post(new ByeMessage(control.nextRequestId()));
        }
        closed = true;
        CloseHelper.quietClose(bootstrap);
        CloseHelper.quietClose(qp);
        CloseHelper.quietClose(cq);
        CloseHelper.quietClose(mr);
        CloseHelper.quietClose(lane);
        CloseHelper.quietClose(requests);
        CloseHelper.quietClose(io);
        arena.close();
    }
}
