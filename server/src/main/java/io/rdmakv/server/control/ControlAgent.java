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
import io.rdmakv.common.protocol.HelpMessage;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.FreeJob;
import io.rdmakv.server.space.IndexCensus;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.VerbsException;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that serves the control plane of every session: ALLOC, FREE, STATS, BYE, REPAIR
 * ({@link SlotRepair}) and DAMAGE_SCAN ({@link DamageScan}) over SEND/RECV, departures (BYE, a closed
 * bootstrap connection, a failed queue pair, an expired lease) and the grace
 * period of freed space. It never handles a GET or a PUT: those never reach the server's CPU.
 * It owns the {@link DataAreaAllocator}; nothing else touches it.
 *
 * <p>Its work per duty cycle is bounded whatever clients send. A request waits in its session's inbox
 * (holding its receive buffer, see {@link Pending}); each session's requests are served in order, even
 * after it departed (its FREEs, then the reclaim); sessions take turns. FREE checks cost at most
 * {@link #FREE_UNITS_PER_CYCLE} units per cycle ({@link FreeJob}); STATS reads an index census taken
 * {@link #CENSUS_GROUPS_PER_CYCLE} groups per cycle; quota and grant cap: {@link SpaceRequests}.
 *
 * <p>Run by an {@link org.agrona.concurrent.AgentRunner} with {@link #idleStrategy()} (an idle node sleeps:
 * see {@link ControlIdle}) and a
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

    /** The most FREE-check units (64-byte headers read) one duty cycle spends, all sessions together. */
    public static final long FREE_UNITS_PER_CYCLE = 4096;

    /** The most index groups (14 slots each) one duty cycle reads for the STATS census. */
    public static final long CENSUS_GROUPS_PER_CYCLE = 4096;

    /** How old the used-slot count in a STATS reply may be; a flood of STATS costs one census pass per period. */
    public static final long STATS_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /**
     * The longest an idle agent sleeps: how late it may see a command from another thread (a session
     * registered or gone, a task), which cannot wake it from its completion queue. 20 ms: 50 wake-ups a
     * second at most; completions wake it at once, and it wakes for the next grace-period end.
     */
    public static final long MAX_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final System.Logger LOG = System.getLogger(ControlAgent.class.getName());

    private final CompletionQueue cq;
    private final DataAreaAllocator allocator;
    private final IndexScanner scanner;
    private final LiveBlockCheck liveBlocks;
    private final NanoClock clock;
    private final ServerCounters counters;
    private final SpaceRequests space;
    private final DeferredFrees deferred = new DeferredFrees();
    private final ArrayDeque<ServerSession> ready = new ArrayDeque<>();
    private final SlotRepair repair;
    /** Set once before the agent's thread starts ({@link #useChainHelp}); null: HELP is refused as unexpected. */
    private ChainHelp chainHelp;
    private final DamageScan damageScan;
    private final SessionRegistry sessions = new SessionRegistry();
    private final Departures departures;
    private final GrantWindows windows;
    private final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final WorkCompletions completions = WorkCompletions.allocate(64);
    private long lastExpiry;
    /** Completions {@link #sleep} took from the queue for the next duty cycle; 0 when none. */
    private int awaited;
    private volatile boolean closed;
    /** Sessions opened under an older epoch than this are fenced (see {@link #applyEpoch}). */
    private volatile long epochFloor;

    /**
     * @param repair       answers REPAIR (counts into {@code counters} too)
     * @param damageScan   answers DAMAGE_SCAN
     * @param counters     where the agent counts; the agent's thread is their only writer
     * @param clock        the time grants, frees, departures and grace-period expiry are stamped with
     * @param sessionQuota the most bytes one session may hold granted and not freed ({@code
     *                     allocator.capacity()}: no quota but the grant cap)
     */
    public ControlAgent(final CompletionQueue cq, final DataAreaAllocator allocator, final IndexScanner scanner,
        final LiveBlockCheck liveBlocks, final SlotRepair repair, final DamageScan damageScan,
        final RegionGeometry geometry, final ServerCounters counters, final NanoClock clock, final long sessionQuota)
    {
        this(cq, allocator, scanner, liveBlocks, repair, damageScan, geometry, counters, clock, sessionQuota,
            new GrantWindows(0, counters));
    }

    /**
     * @param windows how a grant is made writable to its session only ({@link GrantWindows}), or, without
     *                windows, the rkey every session writes the data area with
     */
    public ControlAgent(final CompletionQueue cq, final DataAreaAllocator allocator, final IndexScanner scanner,
        final LiveBlockCheck liveBlocks, final SlotRepair repair, final DamageScan damageScan,
        final RegionGeometry geometry, final ServerCounters counters, final NanoClock clock, final long sessionQuota,
        final GrantWindows windows)
    {
        this.windows = windows;
        this.repair = repair;
        this.damageScan = damageScan;
        this.space = new SpaceRequests(allocator, counters, geometry, sessionQuota,
            new IndexCensus(scanner, STATS_MAX_AGE_NANOS));
        this.cq = cq;
        this.allocator = allocator;
        this.scanner = scanner;
        this.liveBlocks = liveBlocks;
        this.counters = counters;
        this.clock = clock;
        this.lastExpiry = clock.nanoTime();
        this.departures = new Departures(sessions, deferred, space, scanner, clock, windows);
        space.publish();
    }

    /** Answers HELP with {@code help} (call before the agent's thread starts). */
    public void useChainHelp(final ChainHelp help)
    {
        this.chainHelp = help;
    }

    /** Sweeps the backups before departed space is reclaimed ({@link ChainSweeps}; before the thread starts). */
    public void useChainSweeps(final ChainSweeps sweeps)
    {
        departures.sweepWith(sweeps);
    }

    /** Spins and yields briefly after work, then sleeps in {@link #sleep} until work arrives. */
    public IdleStrategy idleStrategy()
    {
        return new ControlIdle(this::sleep);
    }

    /**
     * Blocks on the completion queue until a completion arrives, the next timer is due (the end of a grace
     * period, the next expiry pass) or {@link #MAX_SLEEP_NANOS} passed, whichever comes first; returns at
     * once when work is already waiting. The completions it takes are served by the next {@link #doWork}.
     * Agent thread only.
     */
    void sleep()
    {
        if (awaited != 0 || !ready.isEmpty() || !commands.isEmpty() || closed)
        {
            return;
        }
        final long now = clock.nanoTime();
        final long untilExpiry = allocator.nanosUntilNextExpiry(now);
        final long timeout = untilExpiry == Long.MAX_VALUE ? MAX_SLEEP_NANOS : Math.min(MAX_SLEEP_NANOS,
            Math.max(untilExpiry, lastExpiry + EXPIRY_INTERVAL_NANOS - now));
        if (timeout > 0)
        {
            awaited = Math.max(0, cq.await(completions, timeout));
        }
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
        return sessions.count();
    }

    /** Whether grants are written through memory windows. */
    public boolean memoryWindows()
    {
        return windows.enabled();
    }

    /** Makes a connected session known; its RECVs are already posted. Safe from any thread. */
    public void register(final ServerSession session)
    {
        sessions.add(session);
        commands.add(() ->
        {
            counters.increment(ServerCounter.SESSIONS_OPENED);
            // opened under a map whose epoch a newer one replaced while it was being set up: the bulk fence
            // may have walked the sessions before this one was added, so it is fenced here
            if (session.epoch() < epochFloor && !session.departed())
            {
                counters.increment(ServerCounter.SESSIONS_FENCED_BY_EPOCH);
                departures.departAll(java.util.List.of(session), "it was opened under epoch " + session.epoch() +
                    " and epoch " + epochFloor + " is applied", false, true);
            }
        });
    }

    /**
     * Applies a cluster map of epoch {@code epoch} on the agent's thread: fences every session opened under
     * an older epoch in one step (queue pairs to ERR and windows revoked first, as an expired lease fences;
     * then one departure batch, reclaimed with one walk of the index), and with {@code rebuildAllocator} (this
     * node just became its group's primary) drops their waiting requests and rebuilds the allocator from one
     * index scan instead ({@link #rebuildAllocator}). Sessions registered later under an older epoch are
     * fenced at registration. Safe from any thread; the future completes once done on the agent's thread.
     */
    public CompletableFuture<Integer> applyEpoch(final long epoch, final boolean rebuildAllocator)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        commands.add(() ->
        {
            try
            {
                epochFloor = Math.max(epochFloor, epoch);
                final List<ServerSession> older = new ArrayList<>();
                for (final ServerSession session : sessions.all())
                {
                    if (session.epoch() < epoch)
                    {
                        older.add(session);
                    }
                }
                counters.add(ServerCounter.SESSIONS_FENCED_BY_EPOCH, older.size());
                departures.departAll(older, "a cluster map of epoch " + epoch + " was applied", rebuildAllocator,
                    !rebuildAllocator);
                if (rebuildAllocator)
                {
                    rebuildAllocator();
                }
                done.complete(older.size());
            }
            catch (final RuntimeException e)
            {
                done.completeExceptionally(e);
                throw e;
            }
        });
        return done;
    }

    /**
     * Rebuilds the allocator from one walk of the index: blocks that slots reference are live (granted to
     * nobody), everything else is free, insert-lock words are cleared. Agent thread only, with no session of
     * an older epoch left and none of the new one admitted.
     */
    private void rebuildAllocator()
    {
        final List<Extent> live = scanner.liveBlocksClearingLocks();
        allocator.rebuild(live);
        deferred.clear();
        space.publish();
        LOG.log(System.Logger.Level.INFO, "allocator rebuilt from the index: " + live.size() + " live blocks, " +
            allocator.freeBytes() + " bytes free");
    }

    /** The lowest epoch a session may have been opened under and still be served. */
    public long epochFloor()
    {
        return epochFloor;
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

    /** See {@link SessionRegistry#isLive}. Safe from any thread. */
    public boolean isLive(final long sessionId)
    {
        return sessions.isLive(sessionId);
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
        final int n = awaited != 0 ? awaited : cq.poll(completions);
        awaited = 0;
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
        work += serve(now);
        if (now - lastExpiry > EXPIRY_INTERVAL_NANOS)
        {
            lastExpiry = now;
            allocator.expireGrace(now);
            space.publish();
        }
        return work;
    }

    private void onCompletion(final WorkCompletion wc)
    {
        final ServerSession session = sessions.byQpNum(wc.qpNum());
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
        if (message == null)
        {
            repost(session, buffer);
            return;
        }
        session.inbox.add(new Pending(buffer, message, message instanceof FreeMessage free ?
            new FreeJob(allocator, liveBlocks, session.id(), free, deferred, windows.enabled()) : null,
            space.censusPasses()));
        if (session.inbox.size() == 1)
        {
            ready.add(session);
        }
    }

    private void repost(final ServerSession session, final int buffer)
    {
        if (buffer >= 0 && !session.departed() && !session.postReceive(buffer))
        {
            depart(session, "its queue pair refused a receive buffer");
        }
    }

    /** Serves the sessions with waiting requests, each in turn, within this cycle's budgets. */
    private int serve(final long now)
    {
        int work = 0;
        work += space.advanceCensus(now);
        long freeBudget = FREE_UNITS_PER_CYCLE;
        for (int turns = ready.size(); turns > 0; turns--)
        {
            final ServerSession session = ready.poll();
            Pending head;
            while ((head = session.inbox.peek()) != null)
            {
                if (head.free() != null)
                {
                    if (freeBudget <= 0)
                    {
                        break;
                    }
                    final long spent = head.free().step(freeBudget, now);
                    freeBudget -= spent;
                    counters.add(ServerCounter.FREE_UNITS_EXAMINED, spent);
                    if (!head.free().done())
                    {
                        break;
                    }
                    space.freed(head.free(), head.buffer() >= 0);
                }
                else if (head.message() instanceof StatsMessage stats)
                {
                    final ControlMessage answer = space.stats(stats, head.census(), now, sessions.count(),
                        windows.enabled() ? windows.bound() : StatsOkMessage.NO_WINDOWS);
                    if (answer == null)
                    {
                        break;
                    }
                    reply(session, answer);
                }
                else
                {
                    handle(session, head.message());
                }
                work++;
                session.inbox.poll();
                repost(session, head.buffer());
            }
            if (!session.inbox.isEmpty())
            {
                ready.add(session);
            }
            else if (session.departure != null)
            {
                departures.drained(session);
            }
        }
        return work;
    }

    private void handle(final ServerSession session, final ControlMessage message)
    {
        switch (message)
        {
            case AllocMessage alloc -> allocate(session, alloc);
            case RepairMessage request -> reply(session, repair.repair(request, session.toString()));
            case HelpMessage request when chainHelp != null -> reply(session, chainHelp.help(request));
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

    /**
     * Grants an extent and makes it writable to {@code session} alone ({@link GrantWindows}: the window is
     * reserved first, so a device out of windows refuses the ALLOC without granting; it is bound on the
     * session's queue pair before the reply is posted there). Then the FREEs deferred until it moved on are
     * checked as its own: its previous window is gone.
     */
    private void allocate(final ServerSession session, final AllocMessage alloc)
    {
        final MemoryWindow window;
        try
        {
            window = windows.reserve();
        }
        catch (final VerbsException e)
        {
            counters.increment(ServerCounter.ALLOC_REQUESTS);
            counters.increment(ServerCounter.ALLOC_FAILURES);
            reply(session, new AllocFailedMessage(alloc.requestId(), ReasonCode.OUT_OF_MEMORY.code(),
                "no memory window for a new grant: " + e.getMessage() + "; the session keeps its current extent"));
            return;
        }
        final ControlMessage answer = space.allocate(session.id(), alloc, clock.nanoTime(), windows.writeRkey(window));
        if (!(answer instanceof AllocOkMessage ok))
        {
            windows.unused(window);
            reply(session, answer);
            return;
        }
        if (!windows.bind(session, window, new Extent(ok.chunkOffset(), ok.chunkLength())))
        {
            depart(session, "its queue pair refused a memory window bind");
            return;
        }
        space.publish();
        deferred.replay(session, m -> new FreeJob(allocator, liveBlocks, session.id(), m), space.censusPasses());
        reply(session, answer);
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

    private void depart(final ServerSession session, final String why)
    {
        departures.depart(session, why, closed);
    }

    /** Tells every client the node is going away (SHUTDOWN). Agent thread only. */
    public void announceShutdown()
    {
        sessions.all().forEach(session -> session.notice(new ShutdownMessage(0)));
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
            departures.departAll(new ArrayList<>(sessions.all()), "the node is shutting down", true, true);
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
