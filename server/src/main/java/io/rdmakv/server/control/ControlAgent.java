package io.rdmakv.server.control;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocFailedMessage;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.ErrorMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.MalformedMessageException;
import io.rdmakv.common.protocol.ReasonCode;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that serves the control plane of every session: ALLOC, FREE, STATS, BYE, REPAIR
 * ({@link SlotRepair}) and DAMAGE_SCAN ({@link DamageScan}) over SEND/RECV, departures (BYE, a closed bootstrap connection, a failed queue pair) and the grace
 * period of freed space. It never handles a GET or a PUT: those never reach the server's CPU.
 * It owns the {@link DataAreaAllocator}; nothing else touches it.
 *
 * <p>Run by an {@link org.agrona.concurrent.AgentRunner} with {@link #idleStrategy()} and a
 * {@link CountingErrorHandler}: an unexpected exception in a duty cycle is counted, logged and survived.
 * {@link #onClose()} (on the agent's thread, once the loop stopped) departs every session still open.
 * Time comes from the {@link NanoClock} it is given, so tests drive {@link #doWork()} by hand.
 */
public final class ControlAgent implements Agent
{
    /** The agent thread's name. */
    public static final String ROLE_NAME = "rdmakv-control";

    /** How often a duty cycle moves freed space whose grace period ended back into the free set. */
    public static final long EXPIRY_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private static final System.Logger LOG = System.getLogger(ControlAgent.class.getName());

    private final CompletionQueue cq;
    private final DataAreaAllocator allocator;
    private final IndexScanner scanner;
    private final LiveBlockCheck liveBlocks;
    private final SlotRepair repair;
    private final DamageScan damageScan;
    private final RegionGeometry geometry;
    private final NanoClock clock;
    private final ServerCounters counters;
    private final Map<Integer, ServerSession> byQpNum = new ConcurrentHashMap<>();
    private final Map<Long, ServerSession> byId = new ConcurrentHashMap<>();
    private final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final WorkCompletions completions = WorkCompletions.allocate(64);
    private long lastExpiry;
    private volatile boolean closed;

    /**
     * @param repair     answers REPAIR (counts into {@code counters} too)
     * @param damageScan answers DAMAGE_SCAN
     * @param counters   where the agent counts; the agent's thread is their only writer
     * @param clock      the time grants, frees, departures and grace-period expiry are stamped with
     */
    public ControlAgent(final CompletionQueue cq, final DataAreaAllocator allocator, final IndexScanner scanner,
        final LiveBlockCheck liveBlocks, final SlotRepair repair, final DamageScan damageScan,
        final RegionGeometry geometry, final ServerCounters counters, final NanoClock clock)
    {
        this.repair = repair;
        this.damageScan = damageScan;
        this.cq = cq;
        this.allocator = allocator;
        this.scanner = scanner;
        this.liveBlocks = liveBlocks;
        this.geometry = geometry;
        this.counters = counters;
        this.clock = clock;
        this.lastExpiry = clock.nanoTime();
        publishSpace();
    }

    /**
     * Today's idle behaviour: spin, yield, then park for at most 200 µs, so a request waits at most that
     * long for an idle agent. (A later change makes the agent block on the completion channel.)
     */
    public static IdleStrategy idleStrategy()
    {
        return new BackoffIdleStrategy(100, 10, 1_000, 200_000);
    }

    @Override
    public String roleName()
    {
        return ROLE_NAME;
    }

    public ServerCounters counters()
    {
        return counters;
    }

    public int sessionCount()
    {
        return byQpNum.size();
    }

    /** Makes a connected session known; its RECVs are already posted. Safe from any thread. */
    public void register(final ServerSession session)
    {
        byId.put(session.id(), session);
        byQpNum.put(session.qp().qpNum(), session);
        commands.add(() -> counters.increment(ServerCounter.SESSIONS_OPENED));
    }

    /** Asks the agent to tear a session down (its bootstrap connection closed). Safe from any thread. */
    public void departed(final ServerSession session)
    {
        commands.add(() -> depart(session, "its bootstrap connection closed"));
    }

    /**
     * Asks the agent to tear a session down that the node gives up on, counting {@code why}: its lease
     * expired ({@link ServerCounter#LEASES_EXPIRED}: no whole HEARTBEAT within the lease timeout) or it broke
     * the bootstrap protocol ({@link ServerCounter#MALFORMED_MESSAGES}). Fenced, then its locks released and
     * its space reclaimed, as for any departure. Safe from any thread.
     */
    public void lost(final ServerSession session, final ServerCounter why, final String detail)
    {
        commands.add(() ->
        {
            if (!session.departed())
            {
                counters.increment(why);
                LOG.log(System.Logger.Level.WARNING, session + ": " + detail);
                depart(session, why == ServerCounter.LEASES_EXPIRED ? "its lease expired" : detail);
            }
        });
    }

    /**
     * Whether {@code sessionId} is a session registered and not yet departed: an insert-lock word that is
     * not is stale ({@link io.rdmakv.server.space.IndexScanner#clearStaleLocks}). Safe from any thread: a
     * session is registered before its client learns its id (HELLO_OK), so a lock word a client wrote is live
     * from the moment it can be read.
     */
    public boolean isLive(final long sessionId)
    {
        return byId.containsKey(sessionId);
    }

    /** Counts insert locks a sweep cleared (on the agent's thread, the counters' one writer). */
    public void staleLocksCleared(final int count)
    {
        if (count > 0)
        {
            commands.add(() -> counters.add(ServerCounter.STALE_LOCKS_CLEARED, count));
        }
    }

    /** Runs {@code task} on the agent's thread. */
    public void execute(final Runnable task)
    {
        commands.add(task);
    }

    /** One duty cycle; returns the amount of work done (0 lets the idle strategy back off). */
    @Override
    public int doWork()
    {
        int work = 0;
        final int n = cq.poll(completions);
        for (int i = 0; i < n; i++)
        {
            onCompletion(completions.at(i));
        }
        work += n;
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            command.run();
            work++;
        }
        final long now = clock.nanoTime();
        if (now - lastExpiry > EXPIRY_INTERVAL_NANOS)
        {
            lastExpiry = now;
            allocator.expireGrace(now);
            publishSpace();
        }
        return work;
    }

    private void onCompletion(final WorkCompletion wc)
    {
        final ServerSession session = byQpNum.get(wc.qpNum());
        if (session == null)
        {
            return;
        }
        if (!wc.isSuccess())
        {
            counters.completionError(wc.status());
            depart(session, "its queue pair failed (" + wc.statusEnum() + ")");
            return;
        }
        if (wc.opcode() != WcOpcode.RECV)
        {
            return;
        }
        final int buffer = (int)wc.wrId();
        ControlMessage message = null;
        try
        {
            message = ControlCodec.decode(session.buffers(), session.bufferOffset(buffer), wc.byteLen());
        }
        catch (final MalformedMessageException e)
        {
            counters.increment(ServerCounter.MALFORMED_MESSAGES);
            LOG.log(System.Logger.Level.WARNING, session + " sent a malformed control message: " + e.getMessage());
            reply(session, new ErrorMessage(0, ReasonCode.MALFORMED_MESSAGE.code(), e.getMessage()));
        }
        if (!session.postReceive(buffer))
        {
            depart(session, "its queue pair refused a receive buffer");
            return;
        }
        if (message != null)
        {
            handle(session, message);
        }
    }

    private void handle(final ServerSession session, final ControlMessage message)
    {
        switch (message)
        {
            case AllocMessage alloc -> allocate(session, alloc);
            case FreeMessage free -> free(free);
            case StatsMessage stats -> stats(session, stats);
            case RepairMessage request -> reply(session, repair.repair(request, session.toString()));
            case DamageScanMessage request -> reply(session, damageScan.scan(request));
            case ByeMessage bye ->
            {
                counters.increment(ServerCounter.BYE_REQUESTS);
                depart(session, "it said BYE");
            }
            default ->
            {
                counters.increment(ServerCounter.MALFORMED_MESSAGES);
                reply(session, new ErrorMessage(message.requestId(), ReasonCode.UNEXPECTED_MESSAGE.code(),
                    message.type() + " is not a request a client may send on the control plane"));
            }
        }
    }

    private void allocate(final ServerSession session, final AllocMessage alloc)
    {
        counters.increment(ServerCounter.ALLOC_REQUESTS);
        final long min = alloc.requestedBytes();
        if (min <= 0 || min > allocator.capacity())
        {
            counters.increment(ServerCounter.ALLOC_FAILURES);
            reply(session, new AllocFailedMessage(alloc.requestId(), ReasonCode.REQUEST_TOO_LARGE.code(),
                "ALLOC of " + min + " bytes: a grant is 1.." + allocator.capacity() + " bytes"));
            return;
        }
        final Extent extent =
            allocator.grant(min, Math.max(min, geometry.chunkSize()), clock.nanoTime(), session.id());
        if (extent == null)
        {
            counters.increment(ServerCounter.ALLOC_FAILURES);
            reply(session, new AllocFailedMessage(alloc.requestId(), ReasonCode.OUT_OF_MEMORY.code(),
                "data area full: no free range of " + min + " bytes (" + allocator.freeBytes() +
                " bytes free, " + allocator.graceBytes() + " waiting out the grace period)"));
            return;
        }
        publishSpace();
        reply(session, new AllocOkMessage(alloc.requestId(), extent.offset(), extent.length()));
    }

    private void free(final FreeMessage free)
    {
        counters.increment(ServerCounter.FREE_REQUESTS);
        final long now = clock.nanoTime();
        for (int i = 0; i < free.count(); i++)
        {
            if (allocator.isReleasable(free.offset(i), free.length(i)) &&
                !liveBlocks.containsLiveBlock(free.offset(i), free.length(i)) &&
                allocator.release(free.offset(i), free.length(i), now))
            {
                counters.increment(ServerCounter.FREED_BLOCKS);
            }
            else
            {
                counters.increment(ServerCounter.REFUSED_FREES);
            }
        }
    }

    private void stats(final ServerSession session, final StatsMessage stats)
    {
        counters.increment(ServerCounter.STATS_REQUESTS);
        final long total = allocator.capacity();
        final long free = allocator.freeBytes();
        reply(session, new StatsOkMessage(stats.requestId(), total, total - free - allocator.graceBytes(), free,
            scanner.usedSlots(), geometry.slotCount(), byQpNum.size(), allocator.grantedExtents()));
    }

    private void reply(final ServerSession session, final ControlMessage message)
    {
        final int length = ControlCodec.encode(message, session.buffers(),
            session.bufferOffset(ServerSession.REPLY_BUFFER));
        if (!session.send(ServerSession.REPLY_BUFFER, length))
        {
            depart(session, "a reply could not be posted");
        }
    }

    /**
     * Tears a session down and reclaims what it held that nothing references. Fences first: the queue pair
     * goes to ERR (and is destroyed) before any lock is released or any space reclaimed, so a client that
     * wakes up later cannot write into space or take a lock the node already gave back. Agent thread only.
     */
    private void depart(final ServerSession session, final String why)
    {
        if (session.departed())
        {
            return;
        }
        session.markDeparted();
        byQpNum.remove(session.qp().qpNum(), session);
        byId.remove(session.id(), session);
        session.qp().modifyToError();
        session.close();
        final IndexScanner.Departure found = scanner.scanDeparture(allocator.grantsOf(session.id()), session.id());
        final long reclaimed = allocator.reclaim(session.id(), found.liveBlocks(), clock.nanoTime());
        counters.increment(ServerCounter.SESSIONS_CLOSED);
        counters.add(ServerCounter.RECLAIMED_BYTES, reclaimed);
        counters.add(ServerCounter.LOCKS_RELEASED, found.locksReleased());
        publishSpace();
        LOG.log(System.Logger.Level.DEBUG, session + " departed because " + why + "; reclaimed " + reclaimed +
            " bytes, released " + found.locksReleased() + " insert lock(s)");
    }

    private void publishSpace()
    {
        counters.set(ServerCounter.FREE_BYTES, allocator.freeBytes());
        counters.set(ServerCounter.GRACE_BYTES, allocator.graceBytes());
        counters.set(ServerCounter.GRACE_RANGES, allocator.graceRanges());
        counters.set(ServerCounter.GRANTED_EXTENTS, allocator.grantedExtents());
    }

    /** Tells every client the node is going away (SHUTDOWN). Agent thread only. */
    public void announceShutdown()
    {
        for (final ServerSession session : byQpNum.values())
        {
            final int length = ControlCodec.encode(new ShutdownMessage(0), session.buffers(),
                session.bufferOffset(ServerSession.NOTICE_BUFFER));
            session.send(ServerSession.NOTICE_BUFFER, length);
        }
    }

    /**
     * Departs every session still open and releases the completion buffer. Called once the loop
     * stopped: by the agent runner on the agent's thread, or by whoever owns the agent once its thread
     * ended. Idempotent.
     */
    @Override
    public void onClose()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            for (final ServerSession session : byQpNum.values())
            {
                depart(session, "the node is shutting down");
            }
        }
        finally
        {
            completions.close();
        }
    }

    /** Whether {@link #onClose()} ran. */
    public boolean isClosed()
    {
        return closed;
    }
}
