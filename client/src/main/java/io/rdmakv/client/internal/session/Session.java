package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.NodeCas;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.client.internal.op.Lane;
import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.DamageScanOkMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import org.agrona.CloseHelper;
import org.agrona.concurrent.SystemNanoClock;

import javax.net.ssl.SSLContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One session with one node as the client uses it: a {@link NodeSession} (bootstrap connection, queue pair,
 * control channel, heartbeats and read lease) whose memory is laid out as {@link LaneBuffers}, the lane's share
 * of the node's space ({@link SpaceLease}), and the {@link Lane} that runs the data path on it. Ownership flows
 * one way: the session builds and closes them; none of them calls back into it.
 */
public final class Session implements AutoCloseable
{
    private final NodeSession node;
    private final LaneCounters counters;
    private final LaneRequests requests;
    private final SpaceLease space;
    private final Lane lane;
    private final ReentrantLock use = new ReentrantLock();
    /**
     * The application thread this session belongs to (its {@link Router} table's), shared by all that thread's
     * sessions: a replicated write runs on its thread's sessions with the group's backups without entering them,
     * so whether any session of a thread may be in use is the thread's state, not the session's. A session of no
     * thread yet has one of its own.
     */
    private volatile Owner owner = new Owner();

    /** What all the sessions of one application thread share: its operation in progress, and the janitor's loan. */
    public static final class Owner
    {
        /** The epoch of the router its operation in progress entered with, -1 between operations. */
        private final java.util.concurrent.atomic.AtomicLong operatingEpoch =
            new java.util.concurrent.atomic.AtomicLong(-1);
        /** Set while the janitor reads on one of the thread's sessions ({@link #borrow()}). */
        private volatile boolean borrowed;
    }

    private Session(final NodeSession node, final LaneCounters counters)
    {
        this.node = node;
        this.counters = counters;
        final HelloOkMessage hello = node.hello();
        final RemoteIndex remote = new RemoteIndex(hello.indexRegion().address(), hello.indexRegion().rkey(),
            hello.dataRegion().address(), hello.dataRegion().rkey(), hello.geometry());
        if (hello.nodeAssistedWrites() && hello.clusterMap() != null && hello.clusterMap().replicationFactor() > 1)
        {
            throw SessionRefusedException.incompatible(node.address(), "it writes node-assisted (its device has no " +
                "remote atomics, or --write-path node-assisted) in a cluster of " +
                hello.clusterMap().replicationFactor() + " replicas: this build supports the node-assisted write " +
                "path on unreplicated nodes only");
        }
        requests = new LaneRequests(node.io(), remote, node.memory(), hello.nodeAssistedWrites() ?
            new NodeCas(node.control(), node.memory(), hello.indexRegion().address()) : null);
        space = new SpaceLease(node.control(), counters, SystemNanoClock.INSTANCE, hello.sessionId());
        lane = new Lane(node.memory(), requests, remote, space, node.control(), counters, hello.sessionId(),
            hello.graceNanos(), SystemNanoClock.INSTANCE);
        lane.readUnder(node.lease());
        lane.writeUnder(hello.clusterMap() == null ? 0 : (int)hello.clusterMap().epoch());
    }

    /**
     * Opens a session (its bootstrap connection over TLS with {@code tls}, plaintext when null), or throws
     * {@link io.rdmakv.peer.SessionRefusedException} / {@link io.rdmakv.peer.SessionFailedException}.
     */
    public static Session open(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final long writerId, final byte[] authToken, final SSLContext tls, final long connectTimeoutNanos,
        final long opTimeoutNanos, final WaitStrategy waitStrategy, final ConnectionSetup setup)
    {
        final LaneCounters counters = new LaneCounters();
        final NodeSession node = NodeSession.open(context, pd, address, writerId, authToken, tls, connectTimeoutNanos,
            opTimeoutNanos, waitStrategy, new NodeSession.Shape(LaneBuffers.LENGTH, LaneBuffers.CONTROL, counters),
            setup);
        try
        {
            return new Session(node, counters);
        }
        catch (final RuntimeException e)
        {
            CloseHelper.quietClose(node);
            throw e;
        }
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
        final HelloOkMessage hello = node.hello();
        return List.of(hello.indexRegion(), hello.dataRegion().address(), hello.dataRegion().length(),
            hello.geometry());
    }

    public Lane lane()
    {
        return lane;
    }

    public HelloOkMessage hello()
    {
        return node.hello();
    }

    public InetSocketAddress address()
    {
        return node.address();
    }

    public LaneCounters counters()
    {
        return counters;
    }

    /**
     * Takes the session for one control call that runs under no router (STATS, DAMAGE_SCAN, ...). Every {@link
     * #enter()} is matched by {@link #exit()}.
     */
    public void enter()
    {
        use.lock();
    }

    /**
     * Takes the session for one operation (its owning thread; uncontended unless the janitor holds it for a
     * moment) under a router of map epoch {@code routerEpoch}, which the client's heartbeats report until {@link
     * #exit()} (a volatile store: a caller that reads the client's router again after it and finds it unchanged knows
     * the janitor's next report covers this operation). Waits while the janitor reads on another session of this
     * thread ({@link #borrow()}: rare, two READs). Every {@code enter} is matched by {@link #exit()}.
     */
    public void enter(final long routerEpoch)
    {
        use.lock();
        final Owner o = owner;
        o.operatingEpoch.set(routerEpoch);
        for (int spins = 0; o.borrowed; spins++)
        {
            if (spins < 1_000)
            {
                Thread.onSpinWait();
            }
            else
            {
                java.util.concurrent.locks.LockSupport.parkNanos(20_000); // a slow READ: do not burn a core
            }
        }
    }

    /** The epoch {@link #enter(long)} recorded for its thread's operation in progress, or -1 (any thread). */
    public long operatingEpoch()
    {
        return owner.operatingEpoch.get();
    }

    /**
     * Makes this session one of {@code thread}'s (its {@link Router} table's), before that thread first uses it:
     * waits for a janitor that holds it now.
     */
    void ownedBy(final Owner thread)
    {
        if (owner == thread)
        {
            return;
        }
        use.lock();
        try
        {
            owner = thread;
        }
        finally
        {
            use.unlock();
        }
    }

    /**
     * For the janitor: takes the session for a control-path read on its queue pair, only if neither it nor any
     * session of its thread is in use (no operation of that thread, whose writes run on its sessions with other
     * nodes too, is in progress); never waits. Returns false when it did not. A thread entering meanwhile waits for
     * {@link #giveBack()}. (The thread stores its epoch and then reads the loan; the janitor marks the loan and then
     * reads the epoch: one of them sees the other.)
     */
    public boolean borrow()
    {
        if (!use.tryLock())
        {
            return false;
        }
        final Owner o = owner;
        o.borrowed = true;
        if (o.operatingEpoch.get() >= 0 || isBroken())
        {
            o.borrowed = false;
            use.unlock();
            return false;
        }
        return true;
    }

    /** Ends {@link #borrow()}. */
    public void giveBack()
    {
        owner.borrowed = false;
        use.unlock();
    }

    /** Takes the session only if nobody uses it now (the janitor's way: it never waits for a lane). */
    public boolean tryEnter()
    {
        return use.tryLock();
    }

    public void exit()
    {
        owner.operatingEpoch.lazySet(-1);
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
    public CodedRefusalMessage spaceRefusal()
    {
        return space.refusal();
    }

    /** What the lane was waiting for when it timed out, or empty. */
    public String timedOutWaitingFor()
    {
        return node.timedOutWaitingFor();
    }

    /** True when the session can no longer be used (a failure broke it, or it was closed). */
    public boolean isBroken()
    {
        return node.isBroken();
    }

    /** See {@link NodeSession#heartbeatIfDue}: the janitor's thread, every tick. */
    public boolean heartbeatIfDue(final long nowNanos)
    {
        return node.heartbeatIfDue(nowNanos);
    }

    /**
     * See {@link NodeSession#heartbeatIfDue(long, java.util.function.LongSupplier)}: the heartbeat reports {@code
     * oldestEpoch} (asked only when one is due).
     */
    public boolean heartbeatIfDue(final long nowNanos, final java.util.function.LongSupplier oldestEpoch)
    {
        return node.heartbeatIfDue(nowNanos, oldestEpoch);
    }

    /** The newest map epoch the node said, in its heartbeat answers, it has applied (0: none yet). */
    public long nodeEpoch()
    {
        return node.nodeEpoch();
    }

    /**
     * READs the node's map area on this session's queue pair ({@link MapAreaReader}): the map, or null and why not
     * in {@code why[0]}. The caller holds the session ({@link #borrow()}); control path.
     */
    public io.rdmakv.common.cluster.ClusterMap fetchMap(final String[] why)
    {
        final MapAreaReader.Fetched fetched = MapAreaReader.fetch(node);
        why[0] = fetched.why();
        return fetched.map();
    }

    /** True when the node announced it is shutting down (looks for notices first, without waiting). */
    public boolean shutdownNoticed()
    {
        return node.shutdownNoticed();
    }

    /** STATS (see {@link NodeSession#stats}). */
    public StatsOkMessage stats()
    {
        return node.stats();
    }

    /** DAMAGE_SCAN (see {@link NodeSession#scanDamage}). */
    public DamageScanOkMessage scanDamage(final long fromGroup)
    {
        return node.scanDamage(fromGroup);
    }

    /** SCRUB (see {@link NodeSession#scrub}). */
    public ControlMessage scrub(final long timeoutNanos)
    {
        return node.scrub(timeoutNanos);
    }

    /** REBALANCE (see {@link NodeSession#rebalance}). */
    public ControlMessage rebalance(final boolean dryRun, final String json, final long timeoutNanos)
    {
        return node.rebalance(dryRun, json, timeoutNanos);
    }

    /** Closes the session; waits for a janitor duty that holds it (never for long: duties do not wait). */
    @Override
    public void close()
    {
        use.lock();
        try
        {
            if (!node.isBroken())
            {
                space.flush();
            }
            node.close(() ->
            {
                CloseHelper.quietClose(lane);
                CloseHelper.quietClose(requests);
            });
        }
        finally
        {
            use.unlock();
        }
    }
}
