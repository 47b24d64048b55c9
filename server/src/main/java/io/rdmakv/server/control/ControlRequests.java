package io.rdmakv.server.control;

import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.FenceWritersMessage;
import io.rdmakv.common.protocol.FenceWritersOkMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.HelpMessage;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.ScrubMessage;
import io.rdmakv.common.protocol.ScrubOkMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.FreeJob;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletion;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The control agent's requests, from completion to reply: a RECV's message is decoded into its session's
 * inbox ({@link #onCompletion}), the sessions with requests waiting are served in turns within a duty
 * cycle's budgets ({@link #serve}: FREE checks, the STATS census), and each request goes to what answers
 * it ({@link #handle}: ALLOC here, REPAIR, HELP, DAMAGE_SCAN, BYE). A failed completion, a reply that
 * cannot be posted or a receive buffer refused departs the session ({@link Departures}). Agent thread only.
 */
final class ControlRequests
{
    private static final System.Logger LOG = System.getLogger(ControlRequests.class.getName());

    private final io.rdmakv.common.RateLimitedLog leftovers =
        new io.rdmakv.common.RateLimitedLog(LOG, 10, java.util.concurrent.TimeUnit.SECONDS);
    private long leftoverCompletions;

    private final SessionRegistry sessions;
    private final Departures departures;
    private final DataAreaAllocator allocator;
    private final LiveBlockCheck liveBlocks;
    private final DeferredFrees deferred;
    private final SpaceRequests space;
    private final GrantWindows windows;
    private final SlotRepair repair;
    private final DamageScan damageScan;
    private final ServerCounters counters;
    private final NanoClock clock;
    private final BooleanSupplier closing;
    /** Sessions with requests waiting, in the order they take turns. */
    private final ArrayDeque<ServerSession> ready = new ArrayDeque<>();
    /** Set once before the agent's thread starts; null: HELP is refused as unexpected. */
    private ChainHelp chainHelp;
    /** Set once before the agent's thread starts; null: SLOT_CAS is decoded and refused as unexpected. */
    private SlotCas slotCas;
    /** Set once before the agent's thread starts; null: SCRUB is refused as unexpected. */
    private Scrubs scrubs;
    private Consumer<Runnable> later;
    /** Set on the agent's thread once the node joins a ZooKeeper cluster; null: REBALANCE is refused. */
    private RebalanceDesk rebalance;
    /** This node's part in partition moves, for STATS (agent thread only). */
    private MoveProgressSource moveProgress = MoveProgressSource.NONE;
    /** Set once before the agent's thread starts; null: no replication, every grant stands alone. */
    private ReplicaWindows replicaWindows;

    /** @param closing whether the agent closes (a departure then drops the session's waiting requests) */
    ControlRequests(final SessionRegistry sessions, final Departures departures, final DataAreaAllocator allocator,
        final LiveBlockCheck liveBlocks, final DeferredFrees deferred, final SpaceRequests space,
        final GrantWindows windows, final SlotRepair repair, final DamageScan damageScan,
        final ServerCounters counters, final NanoClock clock, final BooleanSupplier closing)
    {
        this.sessions = sessions;
        this.departures = departures;
        this.allocator = allocator;
        this.liveBlocks = liveBlocks;
        this.deferred = deferred;
        this.space = space;
        this.windows = windows;
        this.repair = repair;
        this.damageScan = damageScan;
        this.counters = counters;
        this.clock = clock;
        this.closing = closing;
    }

    /**
     * Grants and windows in a replicated group ({@link ReplicaWindows}) through {@code grants}, answering through
     * {@code agent} (before the agent's thread starts); {@code nodeGrant} is this node's grant to its own scrub.
     */
    void useReplicaGrants(final GrantPeers grants,
        final ReplicaWindows.NodeGrant nodeGrant, final Consumer<Runnable> agent, final long dataLength)
    {
        this.replicaWindows = new ReplicaWindows(grants, nodeGrant, windows, sessions, counters, agent,
            new ReplicaWindows.Replies()
            {
                @Override
                public void reply(final ServerSession session, final ControlMessage message)
                {
                    ControlRequests.this.reply(session, message);
                }

                @Override
                public void depart(final ServerSession session, final String why)
                {
                    ControlRequests.this.depart(session, why);
                }
            }, dataLength);
    }

    /** A map change or a fence: window checks under way are asked again ({@link ReplicaWindows#fenced}). */
    void fenced()
    {
        if (replicaWindows != null)
        {
            replicaWindows.fenced();
        }
    }

    /** Answers SLOT_CAS with {@code cas} (before the agent's thread starts); without, it is refused as unexpected. */
    void useSlotCas(final SlotCas cas)
    {
        this.slotCas = cas;
    }

    /** Answers HELP with {@code help} (before the agent's thread starts). */
    void useChainHelp(final ChainHelp help)
    {
        this.chainHelp = help;
    }

    /** Answers SCRUB with a pass of {@code scrub}, replying through {@code agent} once it is done (before start). */
    void useScrubs(final Scrubs scrub, final Consumer<Runnable> agent)
    {
        this.scrubs = scrub;
        this.later = agent;
    }

    /** Answers STATS with {@code source}'s move progress from now on (on the agent's thread). */
    void useMoveProgress(final MoveProgressSource source)
    {
        this.moveProgress = source;
    }

    /**
     * Answers REBALANCE through {@code desk}, replying through {@code agent} once it is done (on the agent's thread:
     * a node joins its ZooKeeper cluster after the agent started).
     */
    void useRebalance(final RebalanceDesk desk, final Consumer<Runnable> agent)
    {
        this.rebalance = desk;
        this.later = agent;
    }

    /** Whether some session has requests waiting to be served. */
    boolean waiting()
    {
        return !ready.isEmpty();
    }

    /** Completions ignored as an earlier queue pair's whose number a session's queue pair has now. */
    long leftoverCompletions()
    {
        return leftoverCompletions;
    }

    /**
     * A completion of a destroyed queue pair whose number {@code session}'s queue pair got (siw gives the lowest free
     * number): not the session's, ignored (logged, at most one line per interval).
     */
    private void leftover(final ServerSession session, final WorkCompletion wc)
    {
        leftoverCompletions++;
        final long of = SessionWrId.sessionOf(wc.wrId());
        final int slot = SessionWrId.slot(wc.wrId());
        final String status = String.valueOf(wc.statusEnum());
        leftovers.log(System.Logger.Level.INFO, "leftover completion", "ignored a completion (" + status + ", " +
            (slot < 1000 ? "receive buffer " + slot : "send slot " + slot) + ") of queue pair " + wc.qpNum() +
            " for session " + of + ", which is gone: the number is " + session + "'s now (the device reuses queue " +
            "pair numbers); " + leftoverCompletions + " so far");
    }

    /** Takes one completion of the agent's queue: a request into its session's inbox, or a departure. */
    void onCompletion(final WorkCompletion wc)
    {
        final ServerSession session = sessions.byQpNum(wc.qpNum());
        if (session == null)
        {
            return;
        }
        if (!SessionWrId.isOf(wc.wrId(), session.id()))
        {
            leftover(session, wc);
            return;
        }
        if (!wc.isSuccess())
        {
            counters.completionError(wc.status());
            // the details go to the log (the departure's reason is counted and compared by its words); a flush is
            // what a queue pair moved to ERR reports (a disconnect, the client closing), at DEBUG
            final String history = session.connectionHistory();
            LOG.log(wc.status() == io.rdmakv.verbs.WcStatus.WR_FLUSH_ERR.code() ? System.Logger.Level.DEBUG :
                System.Logger.Level.WARNING, () -> session + ": its queue pair failed: work completion " + wc.statusEnum() +
                ", opcode " + io.rdmakv.verbs.WcOpcode.name(wc.opcode()) + ", vendor_err 0x" +
                Integer.toHexString(wc.vendorErr()) + ", qp_num " + wc.qpNum() + ", wr_id " + wc.wrId() +
                (history.isEmpty() ? "" : "; " + history));
            depart(session, "its queue pair failed (" + wc.statusEnum() + ")");
            return;
        }
        if (wc.opcode() != WcOpcode.RECV)
        {
            return;
        }
        final int buffer = SessionWrId.slot(wc.wrId());
        if (slotCas != null && wc.byteLen() >= MessageHeaderDescriptor.HEADER_LENGTH &&
            MessageHeaderDescriptor.type(session.buffers(), session.bufferOffset(buffer)) == MessageType.SLOT_CAS.code())
        {
            casForClient(session, buffer, wc.byteLen());
            return;
        }
        ControlMessage message = null;
        try
        {
            message = ControlCodec.decode(session.buffers(), session.bufferOffset(buffer), wc.byteLen());
        }
        catch (final MalformedMessageException e)
        {
            counters.increment(ServerCounter.MALFORMED_MESSAGES);
            LOG.log(System.Logger.Level.WARNING, session + " sent a malformed control message: " + e.getMessage());
            reply(session, CodedRefusalMessage.error(0, ReasonCode.MALFORMED_MESSAGE.code(), e.getMessage()));
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

    /**
     * Serves a SLOT_CAS at once, in place, ahead of the session's waiting requests: it stands for an RDMA CAS the
     * client's device could not send, which would not have waited behind them either; the client waits for its
     * answer before it sends anything else on the session, so the reply buffer is free. A departed session's is
     * dropped unanswered (its queue pair is in ERR). Allocation-free unless refused.
     */
    private void casForClient(final ServerSession session, final int buffer, final int length)
    {
        if (session.departed() || session.departure != null)
        {
            repost(session, buffer);
            return;
        }
        final int replyLength = slotCas.serve(session.id(), session.buffers(), session.bufferOffset(buffer), length,
            session.bufferOffset(ServerSession.REPLY_BUFFER));
        repost(session, buffer);
        if (!session.send(ServerSession.REPLY_BUFFER, replyLength))
        {
            depart(session, "a reply could not be posted");
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
    int serve(final long now)
    {
        int work = 0;
        work += space.advanceCensus(now);
        long freeBudget = ControlAgent.FREE_UNITS_PER_CYCLE;
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
                        windows.enabled() ? windows.bound() : StatsOkMessage.NO_WINDOWS, moveProgress);
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
            case AllocMessage alloc when replicaWindows != null -> replicaWindows.allocate(session, alloc, this::grant);
            case AllocMessage alloc -> grant(session, alloc, 0);
            case GrantMessage request when replicaWindows != null -> 
            {
                switch (request.type())
                {
                    case BIND_WINDOW -> replicaWindows.bind(session, request);
                    case CHECK_GRANT -> replicaWindows.check(session, request);
                    default -> replicaWindows.revoke(session, request);
                }
            }
            case RepairMessage request -> reply(session, repair.repair(request, session.toString()));
            case HelpMessage request when chainHelp != null -> reply(session, chainHelp.help(request));
            case DamageScanMessage request -> reply(session, damageScan.scan(request));
            case FenceWritersMessage request -> reply(session, fenceWriters(session, request));
            case ScrubMessage request when scrubs != null -> scrub(session, request);
            case RebalanceMessage request -> rebalance(session, request);
            case ByeMessage bye ->
            {
                counters.increment(ServerCounter.BYE_REQUESTS);
                depart(session, "it said BYE");
            }
            default ->
            {
                counters.increment(ServerCounter.MALFORMED_MESSAGES);
                reply(session, CodedRefusalMessage.error(message.requestId(), ReasonCode.UNEXPECTED_MESSAGE.code(),
                    message.type() + " is not a request a client may send on the control plane"));
            }
        }
    }

    /**
     * Runs a scrub pass now (on the scrub's thread) and answers when it is done, if the session is still there:
     * SCRUB_OK, or ERROR when this node is no primary with backups or a backup could not be scrubbed.
     */
    private void scrub(final ServerSession session, final ScrubMessage request)
    {
        scrubs.now().whenComplete((pass, failure) -> later.accept(() ->
        {
            if (session.departed())
            {
                return;
            }
            if (failure != null)
            {
                final Throwable cause = failure instanceof java.util.concurrent.CompletionException c &&
                    c.getCause() != null ? c.getCause() : failure;
                reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.INTERNAL.code(),
                    "the scrub failed: " + cause.getMessage()));
            }
            else if (pass == Scrubs.Pass.NONE)
            {
                reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.UNEXPECTED_MESSAGE.code(),
                    "this node is not the primary of a replica group with backups: nothing to scrub"));
            }
            else
            {
                reply(session, new ScrubOkMessage(request.requestId(), pass.backups(), pass.slots(), pass.blocks(),
                    pass.wordsRepaired(), pass.blocksRepaired(), pass.healedHere(), pass.leftToWriters(),
                    pass.damagedHere(),
                    pass.nanos()));
            }
        }));
    }

    /**
     * Hands the operator's move request to the rebalance desk and answers when it is done, if the session is still
     * there: REBALANCE_OK, or ERROR (the desk's, or at once on a node of a static cluster, which has none).
     */
    private void rebalance(final ServerSession session, final RebalanceMessage request)
    {
        if (rebalance == null)
        {
            final boolean drain = io.rdmakv.server.cluster.map.DrainRequest.isDrain(
                request.json().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.UNEXPECTED_MESSAGE.code(),
                (drain ? "drain" : "rebalance") + " needs a ZooKeeper cluster: this node serves a static cluster " +
                "map (started without --zookeeper), whose partitions do not move" +
                (drain ? " and whose nodes cannot be drained: stop the node and restart the cluster with a new map" :
                "")));
            return;
        }
        if (session.rebalancing)
        {
            // one at a time per session: a client cannot queue ZooKeeper writes on the desk's thread
            reply(session, CodedRefusalMessage.error(request.requestId(), ReasonCode.UNEXPECTED_MESSAGE.code(),
                "a REBALANCE of this session is under way: wait for its answer"));
            return;
        }
        session.rebalancing = true;
        rebalance.ask(request).whenComplete((answer, failure) -> later.accept(() ->
        {
            session.rebalancing = false;
            if (session.departed())
            {
                return;
            }
            reply(session, failure == null ? answer : CodedRefusalMessage.error(request.requestId(),
                ReasonCode.INTERNAL.code(), "the rebalance request failed: " + failure.getMessage()));
        }));
    }

    /**
     * Fences every session of the writers {@code request} names, but the one asking, as an expired lease fences:
     * their queue pairs are in ERR before the reply is posted, so nothing they send is carried out afterwards. The
     * group's primary asks before it sweeps this node for a departed writer's words ({@code BackupSweep}). A
     * session that registers later is not fenced: it was opened after the primary had fenced the writer's session
     * there, and a write needs its block on the primary before any backup CAS.
     */
    private FenceWritersOkMessage fenceWriters(final ServerSession asking, final FenceWritersMessage request)
    {
        final List<ServerSession> fenced = new ArrayList<>();
        for (final ServerSession s : sessions.all())
        {
            if (s != asking && !s.departed() && request.names(s.writerId()))
            {
                fenced.add(s);
            }
        }
        if (!fenced.isEmpty())
        {
            counters.add(ServerCounter.SESSIONS_FENCED_FOR_PRIMARY, fenced.size());
            departures.departAll(fenced, "its writer's session on its group's primary ended (the primary, " +
                asking.peer() + ", fences it here before sweeping)", closing.getAsBoolean(), true);
        }
        return new FenceWritersOkMessage(request.requestId(), fenced.size());
    }

    /**
     * Grants an extent and makes it writable to {@code session} alone ({@link GrantWindows}: the window is
     * reserved first, so a device out of windows refuses the ALLOC without granting; it is bound on the
     * session's queue pair before the reply is posted there). Then the FREEs deferred until it moved on are
     * checked as its own: its previous window is gone. In a replicated group ({@code secret} not 0) the grant
     * carries its secret, and its previous grant was revoked on the other replicas first ({@link ReplicaWindows}).
     */
    private void grant(final ServerSession session, final AllocMessage alloc, final long secret)
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
            reply(session, CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.OUT_OF_MEMORY.code(),
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
        final Extent extent = new Extent(ok.chunkOffset(), ok.chunkLength());
        if (!windows.bind(session, window, extent))
        {
            depart(session, "its queue pair refused a memory window bind");
            return;
        }
        space.publish();
        // a grant made after its replicas' revocation runs outside serve(): a session whose inbox was empty is
        // in no turn, so the FREEs replayed into it would wait for its next request, behind which they then sit
        final boolean idle = session.inbox.isEmpty();
        deferred.replay(session, m -> new FreeJob(allocator, liveBlocks, session.id(), m), space.censusPasses());
        if (idle && !session.inbox.isEmpty())
        {
            ready.add(session);
        }
        if (replicaWindows != null)
        {
            replicaWindows.granted(session, extent, secret); // 0: a grant no replica mirrors, none to check
        }
        if (secret != 0)
        {
            reply(session, new AllocOkMessage(ok.requestId(), ok.chunkOffset(), ok.chunkLength(), ok.writeRkey(),
                secret));
            return;
        }
        reply(session, answer);
    }

    /**
     * A FREE of blocks a reclaimed segment named (docs/growth.md §10), judged as one from no session: each entry must
     * be exactly one block of its holder, deferred while it lies in a live session's latest extent, refused while a
     * slot names it.
     */
    FreeJob retiredFrees(final io.rdmakv.common.protocol.FreeMessage free)
    {
        return new FreeJob(allocator, liveBlocks, ControlAgent.RECLAIM_SENDER, free, deferred, false);
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

    /** Fences {@code session} for {@code why} and reclaims it once its waiting FREEs are served. */
    void depart(final ServerSession session, final String why)
    {
        departures.depart(session, why, closing.getAsBoolean());
    }
}
