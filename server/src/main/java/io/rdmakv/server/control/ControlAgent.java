package io.rdmakv.server.control;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.space.IndexAtomics;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.FreeJob;
import io.rdmakv.server.space.IndexCensus;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that serves the control plane of every session: ALLOC, FREE, STATS, BYE, REPAIR
 * ({@link SlotRepair}) and DAMAGE_SCAN ({@link DamageScan}) over SEND/RECV ({@link ControlRequests}),
 * departures (BYE, a closed bootstrap connection, a failed queue pair, an expired lease:
 * {@link Departures}), cluster maps ({@link EpochFence}) and the grace period of freed space. It never
 * handles a GET or a PUT: those never reach the server's CPU. It owns the {@link DataAreaAllocator};
 * nothing else touches it. Other threads hand it work as tasks ({@link ControlCommands}).
 *
 * <p>Its work per duty cycle is bounded whatever clients send. A request waits in its session's inbox
 * (holding its receive buffer, see {@link Pending}); each session's requests are served in order, even
 * after it departed (its FREEs, then the reclaim); sessions take turns. FREE checks cost at most
 * {@link #FREE_UNITS_PER_CYCLE} units per cycle ({@link FreeJob}); STATS reads an index census taken
 * {@link #CENSUS_GROUPS_PER_CYCLE} groups per cycle; departed sessions are reclaimed by a walk of
 * {@link #DEPARTURE_GROUPS_PER_CYCLE} groups per cycle ({@link DepartureWalk}); quota and grant cap: {@link SpaceRequests}.
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
    /** The sender of the FREEs of a reclaimed segment's blocks ({@link #freeRetired}): no session, no grant owner. */
    static final long RECLAIM_SENDER = -1;

    /** The most index groups one duty cycle walks for departed sessions (their reclaim: {@link DepartureWalk}). */
    public static final long DEPARTURE_GROUPS_PER_CYCLE = 4096;

    /** The most index groups (14 slots each) one duty cycle reads for the STATS census. */
    public static final long CENSUS_GROUPS_PER_CYCLE = 4096;

    /** How old the used-slot count in a STATS reply may be; a flood of STATS costs one census pass per period. */
    public static final long STATS_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /**
     * How often the census counts the watched segments' loads ({@link #watchSegments}, docs/growth.md §11): a pass
     * over the whole index, {@link #CENSUS_GROUPS_PER_CYCLE} groups per duty cycle, at most this often.
     */
    public static final long LOAD_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * The longest an idle agent sleeps: a safety net only. Completions wake it at once, and so does a task
     * from another thread (a session registered or gone, a map, anything {@link #execute}d: the offer wakes
     * its completion queue, {@link CompletionQueue#wakeup}); it wakes for the next grace-period end and
     * expiry pass on its own. An idle node with nothing in grace so wakes once a second.
     */
    public static final long MAX_SLEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The longest a sleep lasts once {@link #prepareToStop} was called: how long its runner's close may wait. */
    static final long STOPPING_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final System.Logger LOG = System.getLogger(ControlAgent.class.getName());

    private final CompletionQueue cq;
    private final DataAreaAllocator allocator;
    private final NanoClock clock;
    private final ServerCounters counters;
    private final SpaceRequests space;
    private final SessionRegistry sessions = new SessionRegistry();
    private final Departures departures;
    private final GrantWindows windows;
    private final ControlRequests requests;
    private final EpochFence epochs;
    private final ControlCommands commands;
    private final WorkCompletions completions = WorkCompletions.allocate(64);
    private long lastExpiry;
    /** Completions {@link #sleep} took from the queue for the next duty cycle; 0 when none. */
    private int awaited;
    private volatile boolean closed;
    private volatile boolean stopping;
    /** Whether the node serves now; a session registered while it does not is fenced at once. */
    private volatile java.util.function.BooleanSupplier serving = () -> true;

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
        this.space = new SpaceRequests(allocator, counters, geometry, sessionQuota,
            new IndexCensus(scanner, STATS_MAX_AGE_NANOS, LOAD_PERIOD_NANOS));
        this.cq = cq;
        this.commands = new ControlCommands(cq);
        this.allocator = allocator;
        this.counters = counters;
        this.clock = clock;
        this.lastExpiry = clock.nanoTime();
        final DeferredFrees deferred = new DeferredFrees();
        this.departures = new Departures(sessions, deferred, space, scanner, clock, windows);
        this.requests = new ControlRequests(sessions, departures, allocator, liveBlocks, deferred, space, windows,
            repair, damageScan, counters, clock, this::isClosed);
        this.epochs = new EpochFence(sessions, departures, allocator, scanner, deferred, space, counters);
        space.publish();
    }

    /** Answers HELP with {@code help} (call before the agent's thread starts). */
    public void useChainHelp(final ChainHelp help)
    {
        requests.useChainHelp(help);
    }

    /**
     * Serves SLOT_CAS through {@code atomics} when {@code nodeAssisted} (this node's clients cannot CAS its index),
     * refuses it otherwise (before the thread starts; see {@link SlotCas}).
     */
    public void useSlotCas(final IndexAtomics atomics, final RegionGeometry geometry,
        final boolean nodeAssisted)
    {
        requests.useSlotCas(new SlotCas(atomics, geometry, counters, nodeAssisted));
    }

    /** Sweeps the backups before departed space is reclaimed ({@link ChainSweeps}; before the thread starts). */
    public void useChainSweeps(final ChainSweeps sweeps)
    {
        departures.sweepWith(sweeps);
    }

    /** Answers SCRUB with a pass of {@code scrubs} ({@code kvctl scrub}; before the thread starts). */
    public void useScrubs(final Scrubs scrubs)
    {
        requests.useScrubs(scrubs, this::execute);
    }

    /**
     * Answers REBALANCE through {@code desk} from now on ({@code kvctl rebalance}; any time: it is set on the agent's
     * thread). Until then, and on a node of a static cluster, REBALANCE is refused.
     */
    public void useRebalance(final RebalanceDesk desk)
    {
        execute(() -> requests.useRebalance(desk, this::execute));
    }

    /**
     * Answers STATS with {@code source}'s move progress ({@code kvctl cluster}; any time: it is set on the agent's
     * thread). Until then a node says it moves nothing.
     */
    public void useMoveProgress(final MoveProgressSource source)
    {
        execute(() -> requests.useMoveProgress(source));
    }

    /**
     * Memory windows in a replicated group through {@code grants} ({@link ReplicaWindows}; before the thread starts):
     * {@code nodeGrant} is the grant of the whole data area this node's scrub binds its windows on backups with.
     */
    public void useReplicaGrants(final GrantPeers grants, final long scrubWriterId,
        final long scrubSecret, final long dataLength)
    {
        requests.useReplicaGrants(grants, new ReplicaWindows.NodeGrant(scrubWriterId, scrubSecret), this::execute,
            dataLength);
    }

    /** Spins and yields briefly after work, then sleeps in {@link #sleep} until work arrives. */
    public IdleStrategy idleStrategy()
    {
        return new ControlIdle(this::sleep);
    }

    /**
     * Shortens the agent's sleeps to {@link #STOPPING_SLEEP_NANOS} from now on and wakes it: call just before
     * closing its runner, whose close otherwise waits for the sleep in progress to end (up to
     * {@link #MAX_SLEEP_NANOS}). Safe from any thread.
     */
    public void prepareToStop()
    {
        stopping = true;
        cq.wakeup();
    }

    /**
     * Blocks on the completion queue until a completion arrives, a task is offered, the next timer is due
     * (the end of a grace period, the next expiry pass) or {@link #MAX_SLEEP_NANOS} passed, whichever comes
     * first; returns at once when work is already waiting. The completions it takes are served by the next
     * {@link #doWork}. Agent thread only.
     */
    void sleep()
    {
        if (awaited != 0 || requests.waiting() || !commands.isEmpty() || closed)
        {
            return;
        }
        final long now = clock.nanoTime();
        final long untilExpiry = allocator.nanosUntilNextExpiry(now);
        final long maxSleep = stopping ? STOPPING_SLEEP_NANOS : MAX_SLEEP_NANOS;
        final long timeout = untilExpiry == Long.MAX_VALUE ? maxSleep : Math.min(maxSleep,
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

    /** See {@link SessionRegistry#lowestReportedEpoch}: any thread. */
    public long lowestReportedEpoch(final long none)
    {
        return sessions.lowestReportedEpoch(none);
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
        commands.offer(() ->
        {
            counters.increment(ServerCounter.SESSIONS_OPENED);
            epochs.registered(session);
            if (!session.departed() && !serving.getAsBoolean())
            {
                counters.increment(ServerCounter.SESSIONS_SELF_FENCED);
                departures.departAll(List.of(session), "it was opened just as the node stopped serving", false, true);
            }
        });
    }

    /**
     * Fences a session registered while {@code serving} is false (checked on the agent's thread, after every
     * {@link #fenceAll} offered before: no session slips between a check and a fence). Call before clients come.
     */
    public void admitOnlyWhile(final java.util.function.BooleanSupplier serving)
    {
        this.serving = serving;
    }

    /**
     * Whether {@code [offset, offset + length)} of the data area lies inside a grant of a session live now: a
     * block a writer that may still finish wrote ({@code ChainHelp} finishes such writes). Answered on the agent's
     * thread, which alone knows the grants; any thread may ask.
     */
    public CompletableFuture<Boolean> grantedToLiveSession(final long offset, final long length)
    {
        final CompletableFuture<Boolean> answer = new CompletableFuture<>();
        commands.offer(() ->
        {
            final long owner = allocator.ownerOf(offset, length);
            answer.complete(owner > DataAreaAllocator.NO_OWNER && sessions.isLive(owner));
        });
        return answer;
    }

    /**
     * Fences every session, on the agent's thread, as an expired lease fences (queue pairs to ERR and windows
     * revoked first, then one departure batch whose unreferenced space is reclaimed): the node cannot vouch for
     * what it serves ({@code why}). The future completes with the number fenced once done.
     */
    public CompletableFuture<Integer> fenceAll(final String why)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        commands.offer(() ->
        {
            final List<ServerSession> all = new ArrayList<>();
            for (final ServerSession session : sessions.all())
            {
                if (!session.departed())
                {
                    all.add(session);
                }
            }
            requests.fenced();
            counters.add(ServerCounter.SESSIONS_SELF_FENCED, all.size());
            departures.departAll(all, why, false, true);
            done.complete(all.size());
        });
        return done;
    }

    /** See {@link SessionRegistry#countBelow}: any thread. */
    public int sessionsBelow(final long epoch)
    {
        return sessions.countBelow(epoch);
    }

    /**
     * Fences, on the agent's thread, every session whose client may still run an operation under a map older than
     * {@code epoch} ({@link ServerSession#oldestEpoch}), as an expired lease fences: before a segment they could
     * still read is reclaimed (docs/growth.md §10). The future completes with the number fenced.
     */
    public CompletableFuture<Integer> fenceBelow(final long epoch, final String why)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        commands.offer(() ->
        {
            final List<ServerSession> lagging = new ArrayList<>();
            for (final ServerSession session : sessions.all())
            {
                if (!session.departed() && session.oldestEpoch() < epoch)
                {
                    lagging.add(session);
                }
            }
            counters.add(ServerCounter.SESSIONS_FENCED_BY_EPOCH, lagging.size());
            departures.departAll(lagging, why, false, true);
            done.complete(lagging.size());
        });
        return done;
    }

    /** What {@link #freeRetired} did with a reclaimed segment's blocks. */
    public record RetiredFrees(int freed, int deferred, int refused)
    {
    }

    /**
     * Frees blocks a reclaimed retired segment named (at most {@link io.rdmakv.common.protocol.FreeMessage#MAX_ENTRIES}
     * offsets and lengths, after the segment was zeroed), on the agent's thread, each judged as a FREE from no session
     * ({@link FreeJob}): freed into the grace period, deferred while it lies in a live session's latest extent, or
     * refused (not exactly one block of its holder, not granted, or a slot names it). One call per message's worth,
     * so that no command holds the agent long.
     */
    public CompletableFuture<RetiredFrees> freeRetired(final long[] offsets, final int[] lengths)
    {
        final CompletableFuture<RetiredFrees> done = new CompletableFuture<>();
        final io.rdmakv.common.protocol.FreeMessage free = new io.rdmakv.common.protocol.FreeMessage(0, offsets, lengths);
        commands.offer(() ->
        {
            final FreeJob job = requests.retiredFrees(free);
            while (!job.done())
            {
                job.step(FREE_UNITS_PER_CYCLE, clock.nanoTime());
            }
            space.publish();
            done.complete(new RetiredFrees(job.count(FreeJob.Verdict.FREED), job.count(FreeJob.Verdict.DEFERRED),
                job.count(FreeJob.Verdict.NOT_GRANTED) + job.count(FreeJob.Verdict.FOREIGN) +
                    job.count(FreeJob.Verdict.LIVE)));
        });
        return done;
    }

    /**
     * Applies a cluster map of epoch {@code epoch} on the agent's thread: fences every session opened under
     * an older epoch in one step (queue pairs to ERR and windows revoked first, as an expired lease fences;
     * then one departure batch, reclaimed with one walk of the index), and with {@code rebuildAllocator} (this
     * node just became its group's primary) drops their waiting requests and rebuilds the allocator from one
     * index scan instead ({@link EpochFence}). Sessions registered later under an older epoch are
     * fenced at registration. Safe from any thread; the future completes once done on the agent's thread.
     */
    public CompletableFuture<Integer> applyEpoch(final long epoch, final boolean rebuildAllocator)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        commands.offer(() ->
        {
            requests.fenced();
            try
            {
                done.complete(epochs.apply(epoch, rebuildAllocator));
            }
            catch (final RuntimeException e)
            {
                done.completeExceptionally(e);
                throw e;
            }
        });
        return done;
    }

    /** The lowest epoch a session may have been opened under and still be served. */
    public long epochFloor()
    {
        return epochs.floor();
    }

    /** Asks the agent to tear a session down (its bootstrap connection closed). Safe from any thread. */
    public void departed(final ServerSession session)
    {
        commands.offer(() -> requests.depart(session, "its bootstrap connection closed"));
    }

    /**
     * Asks the agent to tear a session down whose rdma_cm connection ended ({@code why}: the client disconnected,
     * the connection manager gave up on it, or it never connected its queue pair): fenced, then its locks released
     * and its space reclaimed, as after its queue pair failed. Safe from any thread.
     */
    public void disconnected(final ServerSession session, final String why)
    {
        commands.offer(() ->
        {
            if (!session.departed())
            {
                requests.depart(session, why);
            }
        });
    }

    /**
     * Asks the agent to tear a session down that the node gives up on, counting {@code why}: its lease
     * expired ({@link ServerCounter#LEASES_EXPIRED}: no whole HEARTBEAT within the lease timeout) or it broke
     * the bootstrap protocol ({@link ServerCounter#MALFORMED_MESSAGES}). Fenced, then its locks released and
     * its space reclaimed, as for any departure. Safe from any thread.
     */
    public void lost(final ServerSession session, final ServerCounter why, final String detail)
    {
        commands.offer(() ->
        {
            if (!session.departed())
            {
                counters.increment(why);
                LOG.log(System.Logger.Level.WARNING, session + ": " + detail);
                requests.depart(session, why == ServerCounter.LEASES_EXPIRED ? "its lease expired" : detail);
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
            commands.offer(() -> counters.add(ServerCounter.STALE_LOCKS_CLEARED, count));
        }
    }

    /**
     * Counts the used slots of {@code segments} (partition {@code partitions[i]}'s, in the map of {@code epoch}) in
     * the census passes from now on, a pass every {@link #LOAD_PERIOD_NANOS}; none: stop. Safe from any thread.
     */
    public void watchSegments(final long epoch, final int[] partitions, final long[] segments)
    {
        final int[] p = partitions.clone();
        final long[] s = segments.clone();
        commands.offer(() -> space.census().watch(epoch, p, s));
    }

    /** The segment loads the last complete census pass counted ({@link #watchSegments}). Safe from any thread. */
    public io.rdmakv.server.space.SegmentLoads segmentLoads()
    {
        return space.census().load();
    }

    /** Runs {@code task} on the agent's thread. */
    public void execute(final Runnable task)
    {
        commands.offer(task);
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
            requests.onCompletion(completions.at(i));
        }
        work += n;
        work += commands.runAll();
        final long now = clock.nanoTime();
        work += requests.serve(now);
        final int walked = departures.step(DEPARTURE_GROUPS_PER_CYCLE);
        if (walked > 0)
        {
            counters.add(ServerCounter.DEPARTURE_GROUPS_WALKED, walked);
            work += walked;
        }
        if (now - lastExpiry > EXPIRY_INTERVAL_NANOS)
        {
            lastExpiry = now;
            allocator.expireGrace(now);
            space.publish();
        }
        return work;
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
