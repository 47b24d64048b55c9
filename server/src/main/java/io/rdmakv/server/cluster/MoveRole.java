package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.cluster.map.MoveState;
import io.rdmakv.server.replication.FreezeCancelledException;
import io.rdmakv.server.replication.MoveCopy;
import io.rdmakv.server.replication.PartitionCopier;
import io.rdmakv.server.replication.PartitionMove;
import io.rdmakv.server.space.SegmentLoads;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node's part in the partition moves of the maps it applies (docs/growth.md §7, §9), beside {@link CopyLoop}: what
 * the primaries of a batch's two groups do at each phase, and the node's {@code moves/<id>} report.
 * <ul>
 *   <li><b>Target primary.</b> COPY: starts the copy ({@link MoveNode#startCopy}) and reports {@code bulk} when its
 *       bulk passes converged. FREEZE: tells the copy the freeze began; reports {@code final} when a pass found every
 *       source word frozen and copied it all. SWITCH: hands the copy's blocks over (no abort is possible from here
 *       on, and no client writes the target before OPEN). OPEN: makes sure the hand-over is done before the node
 *       clears MOVING ({@link #beforeApply}). An abandoned batch: the copy is stopped and aborted (target segments
 *       zeroed on every replica, grants given back); a new copy starts only after every abort finished, since a
 *       new batch may be given the freed segment.</li>
 *   <li><b>Source primary.</b> FREEZE: freezes each partition's segment along the chain ({@link MoveNode#freeze}),
 *       a few tries; reports {@code failed} when it cannot. SWITCH: the node marked the retired segments MOVED while
 *       applying the map ({@link MoveMarks}), so it reports {@code marked}. An abandoned batch: every freeze is
 *       cancelled before the node clears MOVING ({@link #beforeApply}); a map that abandons a frozen batch also
 *       fences (the planner moves the fence epoch), so no CAS of the freeze on a backup lands after that backup
 *       cleared.</li>
 *   <li><b>Either side</b> reports {@code failed} when its copy or freeze failed (the coordinator aborts the batch).
 *       The report is rewritten after every map (a report counts for one epoch), retried while it fails.</li>
 * </ul>
 * Work runs on a worker thread of its own ("rdmakv-move"): never the membership thread, except {@link #beforeApply},
 * which only cancels and waits for what must be over before the map's marks.
 */
final class MoveRole implements AutoCloseable
{
    static final int FREEZE_TRIES = 5;
    static final long FREEZE_RETRY_MILLIS = 200;
    static final long REPORT_RETRY_MILLIS = 250;
    static final long MAX_REPORT_RETRY_MILLIS = 4000;
    static final long WAIT_SECONDS = 30;
    static final int ABORT_TRIES = 10;
    static final long ABORT_RETRY_MILLIS = 500;
    /** How long a session may go on reporting a map before a segment's switch before it is fenced (growth.md §10). */
    static final long RECLAIM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How often the conditions of the retired segments waiting here are checked. */
    static final long RECLAIM_TICK_MILLIS = 200;

    private static final System.Logger LOG = System.getLogger(MoveRole.class.getName());

    /** What this node says of one batch, and the phase the saying belongs to. */
    private record Said(MovePhase phase, MoveState state)
    {
    }

    /** A retired segment of this node's group, its batch opened, not yet reclaimed here. */
    private static final class Retiring
    {
        final RetiredSegment segment;
        /** When this node first saw it retired with its batch gone (applied OPEN, or a later map). */
        final long since;
        /** When no session here was found lagging, since the last that was (0: one is). */
        long clearSince;
        boolean reclaimed;

        Retiring(final RetiredSegment segment, final long since)
        {
            this.segment = segment;
            this.since = since;
        }
    }

    /** A copy this node runs as a target primary. */
    private static final class Copy
    {
        final MoveBatch batch;
        final MoveCopy copy;
        boolean deltaStarted;
        long keysCounted;
        long bytesCounted;
        CompletableFuture<Long> handOver;
        CompletableFuture<PartitionCopier.Result> abort;

        Copy(final MoveBatch batch, final MoveCopy copy)
        {
            this.batch = batch;
            this.copy = copy;
        }
    }

    private final MoveNode node;
    private final int nodeId;
    private final MoveReporter reporter;
    private final long reclaimWaitNanos;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r ->
    {
        final Thread t = new Thread(r, "rdmakv-move");
        t.setDaemon(true);
        return t;
    });
    private final Map<Long, Copy> copies = new HashMap<>();
    private final Map<Long, Said> said = new TreeMap<>();
    private final Set<Long> frozen = new HashSet<>();
    private final List<CompletableFuture<?>> aborting = new ArrayList<>();
    private final List<Retiring> retiring = new ArrayList<>();
    private final AtomicLong reclaims = new AtomicLong();
    private final AtomicLong reclaimedBlocks = new AtomicLong();
    private final AtomicLong refusedBlocks = new AtomicLong();
    private boolean tickScheduled;
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong aborted = new AtomicLong();
    private final AtomicLong freezes = new AtomicLong();
    private final AtomicLong freezeNanos = new AtomicLong();
    private final AtomicLong keysCopied = new AtomicLong();
    private final AtomicLong bytesCopied = new AtomicLong();
    private ClusterMap map;
    /** What STATS tells of this node's moves, republished under this role's lock, read by the control thread. */
    private final MovesTaken taken;
    private boolean reportedSomething;
    private long reportRetryMillis = REPORT_RETRY_MILLIS;
    private boolean retryScheduled;

    MoveRole(final MoveNode node, final int nodeId, final MoveReporter reporter)
    {
        this(node, nodeId, reporter, RECLAIM_WAIT_NANOS);
    }

    /** @param reclaimWaitNanos how long sessions may lag a retired segment's switch before they are fenced */
    MoveRole(final MoveNode node, final int nodeId, final MoveReporter reporter, final long reclaimWaitNanos)
    {
        this.node = node;
        this.nodeId = nodeId;
        this.reporter = reporter;
        this.reclaimWaitNanos = reclaimWaitNanos;
        this.taken = new MovesTaken(nodeId);
    }

    /**
     * On the membership thread, before the node applies {@code next} (having applied {@code previous}): cancels the
     * freezes of batches {@code next} abandons, so that none CASes after the node's clear; stops the copies it
     * abandons; and waits for the hand-over of every copy whose partitions open here, so that no client writes the
     * target segments while the copy still holds their blocks.
     */
    void beforeApply(final ClusterMap previous, final ClusterMap next)
    {
        if (previous == null || previous.isSimple())
        {
            return;
        }
        boolean cancel = false;
        for (final MoveBatch b : previous.moves().batches())
        {
            if (b.phase() == MovePhase.FREEZE && batch(next, b.id()) == null)
            {
                cancel = true;
            }
        }
        if (cancel)
        {
            node.cancelFreezes(next.epoch());
        }
        final List<CompletableFuture<Long>> handOvers = new ArrayList<>();
        synchronized (this)
        {
            for (final Copy c : copies.values())
            {
                if (batch(next, c.batch.id()) != null)
                {
                    continue;
                }
                if (openedHere(next, c.batch))
                {
                    handOvers.add(handOver(c));
                }
                else
                {
                    abort(c);
                }
            }
        }
        for (final CompletableFuture<Long> h : handOvers)
        {
            try
            {
                h.get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
            catch (final Exception e)
            {
                LOG.log(System.Logger.Level.ERROR, "the hand-over of a copied batch did not finish before the map of " +
                    "epoch " + next.epoch() + " opens it: " + e + "; its blocks may stay held");
            }
        }
    }

    /** After the node applied {@code applied}: acts on its batches on the worker thread. */
    void onMap(final ClusterMap applied)
    {
        worker.execute(() -> reconcile(applied));
    }

    /** Batches whose partitions opened on this node's group after this node copied them. */
    long opened()
    {
        return opened.get();
    }

    /** Batches this node copied and aborted. */
    long aborted()
    {
        return aborted.get();
    }

    /** Segments this node froze as a source primary, and the time they took. */
    long freezes()
    {
        return freezes.get();
    }

    long freezeNanos()
    {
        return freezeNanos.get();
    }

    /** Retired segments this node reclaimed. */
    long reclaims()
    {
        return reclaims.get();
    }

    /** Blocks of reclaimed segments this node freed or deferred as a primary, and those it refused to free. */
    long reclaimedBlocks()
    {
        return reclaimedBlocks.get();
    }

    long refusedBlocks()
    {
        return refusedBlocks.get();
    }

    /**
     * How far this node's part in the moves under way has come, for STATS ({@code kvctl cluster}; the control
     * thread, given the census's last count {@code loads}; {@link MovesTaken#progress}). Never blocks.
     */
    StatsOkMessage.MoveProgress progress(final SegmentLoads loads)
    {
        return taken.progress(loads);
    }

    /** Republishes what STATS tells from {@link #map} and {@link #copies} (under this role's lock). */
    private void publishTaking()
    {
        taken.publish(map, id ->
        {
            final Copy c = copies.get(id);
            return c == null ? null : c.copy;
        });
    }

    /** Keys and bytes this node's copies wrote into its group. */
    long keysCopied()
    {
        return keysCopied.get();
    }

    long bytesCopied()
    {
        return bytesCopied.get();
    }

    private void reconcile(final ClusterMap next)
    {
        final List<MoveBatch> toFreeze = new ArrayList<>();
        synchronized (this)
        {
            if (map != null && next.epoch() <= map.epoch())
            {
                return;
            }
            map = next;
            settleCopies(next);
            said.entrySet().removeIf(e ->
            {
                final MoveBatch b = batch(next, e.getKey());
                return b == null || b.phase() != e.getValue().phase();
            });
            frozen.removeIf(id -> batch(next, id) == null);
            retire(next);
            if (!next.isSimple())
            {
                for (final MoveBatch b : next.moves().batches())
                {
                    if (isPrimaryOf(next, b.target()))
                    {
                        target(next, b);
                    }
                    if (isPrimaryOf(next, b.source()))
                    {
                        if (b.phase() == MovePhase.FREEZE && !frozen.contains(b.id()))
                        {
                            toFreeze.add(b);
                        }
                        else if (b.phase() == MovePhase.SWITCH)
                        {
                            // the node marked the batch's retired segments applying this map, before serving it
                            say(b, MoveState.MARKED);
                        }
                    }
                }
            }
            publishTaking();
        }
        report();
        for (final MoveBatch b : toFreeze)
        {
            freeze(next, b);
        }
        scheduleTick();
    }

    /**
     * Follows the retired segments of this node's group in {@code next} whose batch has opened: new ones start
     * waiting, those the map dropped (every member reclaimed) are forgotten. Only members reclaim.
     */
    private void retire(final ClusterMap next)
    {
        final ReplicaGroup mine = next.isSimple() ? null : next.groupOfNode(nodeId);
        if (mine == null || !mine.isMember(nodeId))
        {
            retiring.clear();
            return;
        }
        final List<RetiredSegment> now = new ArrayList<>();
        for (final RetiredSegment r : next.moves().retired())
        {
            if (r.group() == mine.id() && batch(next, r.batch()) == null)
            {
                now.add(r);
            }
        }
        retiring.removeIf(w -> !now.contains(w.segment));
        for (final RetiredSegment r : now)
        {
            if (retiring.stream().noneMatch(w -> w.segment.equals(r)))
            {
                retiring.add(new Retiring(r, System.nanoTime()));
            }
        }
    }

    private synchronized void scheduleTick()
    {
        if (!tickScheduled && retiring.stream().anyMatch(w -> !w.reclaimed))
        {
            tickScheduled = true;
            worker.schedule(this::tick, RECLAIM_TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Reclaims each waiting retired segment whose conditions hold here (growth.md §10): no session of this node may
     * still run an operation under a map before the segment's switch (those that still report one after {@link
     * #RECLAIM_WAIT_NANOS} are fenced), and a grace period has passed since that was first so. The primary frees the
     * blocks; every member zeroes the segment and reports {@code reclaimed} once all its group's retired segments of
     * that batch are.
     */
    private void tick()
    {
        final List<Retiring> due = new ArrayList<>();
        final List<RetiredSegment> toFence = new ArrayList<>();
        final boolean primary;
        final long grace = node.graceNanos();
        synchronized (this)
        {
            tickScheduled = false;
            final ReplicaGroup mine = map == null || map.isSimple() ? null : map.groupOfNode(nodeId);
            primary = mine != null && isPrimaryOf(map, mine.id());
            final long now = System.nanoTime();
            for (final Retiring w : retiring)
            {
                if (w.reclaimed)
                {
                    continue;
                }
                final int lagging = node.sessionsBelow(w.segment.switchEpoch());
                if (lagging > 0)
                {
                    w.clearSince = 0;
                    if (now - w.since >= reclaimWaitNanos)
                    {
                        toFence.add(w.segment);
                    }
                    continue;
                }
                if (w.clearSince == 0)
                {
                    w.clearSince = now;
                }
                else if (now - w.clearSince >= grace)
                {
                    due.add(w);
                }
            }
        }
        for (final RetiredSegment r : toFence)
        {
            try
            {
                final int fenced = node.fenceSessionsBelow(r.switchEpoch(), "its client still reported an operation " +
                    "under a map before epoch " + r.switchEpoch() + " after " +
                    TimeUnit.NANOSECONDS.toMillis(reclaimWaitNanos) + " ms, and " + r + " is to be reclaimed");
                LOG.log(System.Logger.Level.WARNING, fenced + " lagging session(s) fenced so that " + r +
                    " can be reclaimed");
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "fencing lagging sessions for " + r + ": " + e.getMessage());
            }
        }
        boolean changed = false;
        for (final Retiring w : due)
        {
            try
            {
                final MoveNode.Reclaimed did = node.reclaim(w.segment.segment(), primary);
                synchronized (this)
                {
                    w.reclaimed = true;
                }
                reclaims.incrementAndGet();
                reclaimedBlocks.addAndGet(did.freed() + did.deferred());
                refusedBlocks.addAndGet(did.refused());
                changed = true;
                LOG.log(did.refused() == 0 ? System.Logger.Level.INFO : System.Logger.Level.WARNING, w.segment +
                    " reclaimed on this node: zeroed" + (primary ? "; of the " + did.named() + " blocks it named " +
                    did.freed() + " freed, " + did.deferred() + " deferred (in a live writer's latest extent: freed " +
                    "when it moves on), " + did.refused() + " refused (not one block of its holder, or named " +
                    "elsewhere)" : " (" + did.named() + " blocks named: the primary frees them)"));
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "reclaiming " + w.segment + ": " + e.getMessage() +
                    "; retried");
            }
        }
        if (changed)
        {
            report();
        }
        scheduleTick();
    }

    /** Copies whose batch {@code next} no longer lists: handed over and closed, or aborted and closed. */
    private void settleCopies(final ClusterMap next)
    {
        for (final var it = copies.values().iterator(); it.hasNext(); )
        {
            final Copy c = it.next();
            if (batch(next, c.batch.id()) != null)
            {
                continue;
            }
            it.remove();
            if (openedHere(next, c.batch))
            {
                // closed from this role's worker: a copy's close waits for the copy's own worker to end
                handOver(c).whenCompleteAsync((bytes, t) -> c.copy.close(), worker);
                opened.incrementAndGet();
                LOG.log(System.Logger.Level.INFO, c.batch + " opened on this node's group (epoch " + next.epoch() + ")");
            }
            else
            {
                abort(c);
                aborted.incrementAndGet();
                LOG.log(System.Logger.Level.INFO, c.batch + " abandoned at epoch " + next.epoch() + ": the copy is " +
                    "aborted (target segments zeroed, grants given back)");
            }
        }
        aborting.removeIf(CompletableFuture::isDone);
    }

    /** This node as the target group's primary of {@code b}, in {@code current}. */
    private void target(final ClusterMap current, final MoveBatch b)
    {
        final Copy c = copies.get(b.id());
        switch (b.phase())
        {
            case COPY ->
            {
                if (c == null)
                {
                    startCopy(current, b);
                }
            }
            case FREEZE ->
            {
                if (c == null)
                {
                    say(b, MoveState.FAILED);
                    LOG.log(System.Logger.Level.WARNING, b + ": this node holds no copy of it (it was not the target " +
                        "primary at COPY); reported failed");
                }
                else if (!c.deltaStarted)
                {
                    c.deltaStarted = true;
                    c.copy.freezeBegun().whenComplete((r, t) -> worker.execute(() -> copied(b.id(), MovePhase.FREEZE,
                        r, t)));
                }
            }
            case SWITCH ->
            {
                if (c != null)
                {
                    handOver(c);
                }
            }
            default -> throw new IllegalStateException("phase " + b.phase());
        }
    }

    private void startCopy(final ClusterMap current, final MoveBatch b)
    {
        if (!aborting.isEmpty())
        {
            // an aborted batch's target segment may be this one's: start once every abort has zeroed its own
            final CompletableFuture<?>[] waits = aborting.toArray(new CompletableFuture<?>[0]);
            CompletableFuture.allOf(waits).orTimeout(WAIT_SECONDS, TimeUnit.SECONDS).whenComplete((v, t) ->
                worker.execute(() -> startAfterAborts(b.id(), t)));
            return;
        }
        final PartitionMove move;
        try
        {
            move = moveOf(current, b);
        }
        catch (final RuntimeException e)
        {
            say(b, MoveState.FAILED);
            LOG.log(System.Logger.Level.WARNING, b + ": cannot copy it: " + e.getMessage() + "; reported failed");
            return;
        }
        final MoveCopy copy;
        try
        {
            copy = node.startCopy(move);
        }
        catch (final RuntimeException e)
        {
            say(b, MoveState.FAILED);
            LOG.log(System.Logger.Level.WARNING, b + ": the copy did not start: " + e.getMessage() + "; reported failed");
            return;
        }
        copies.put(b.id(), new Copy(b, copy));
        LOG.log(System.Logger.Level.INFO, b + ": copying from " + move.source() + " (epoch " + current.epoch() + ")");
        copy.bulk().whenComplete((r, t) -> worker.execute(() -> copied(b.id(), MovePhase.COPY, r, t)));
    }

    private void startAfterAborts(final long id, final Throwable waited)
    {
        synchronized (this)
        {
            final MoveBatch b = batch(map, id);
            if (b == null || b.phase() != MovePhase.COPY || copies.containsKey(id) || !isPrimaryOf(map, b.target()))
            {
                return;
            }
            if (waited != null)
            {
                say(b, MoveState.FAILED);
                LOG.log(System.Logger.Level.WARNING, b + ": an earlier copy's abort did not finish in " + WAIT_SECONDS +
                    " s (" + waited + "); reported failed rather than copy over a segment it may still zero");
            }
            else
            {
                aborting.removeIf(CompletableFuture::isDone);
                startCopy(map, b);
                publishTaking();
            }
        }
        report();
    }

    /** A copy's bulk passes ({@code phase} COPY) or delta ({@code phase} FREEZE) ended. */
    private void copied(final long id, final MovePhase phase, final PartitionCopier.Result r, final Throwable t)
    {
        synchronized (this)
        {
            final Copy c = copies.get(id);
            if (c != null && r != null)
            {
                // the copier's counters are cumulative: count what this stage added
                keysCopied.addAndGet(r.report().keysCopied() - c.keysCounted);
                bytesCopied.addAndGet(r.report().bytesCopied() - c.bytesCounted);
                c.keysCounted = r.report().keysCopied();
                c.bytesCounted = r.report().bytesCopied();
            }
            final MoveBatch b = batch(map, id);
            if (b == null || b.phase() != phase || c == null)
            {
                return;
            }
            final boolean ok = t == null && r.outcome() == (phase == MovePhase.COPY ? PartitionCopier.Outcome.BULK :
                PartitionCopier.Outcome.FINAL);
            say(b, ok ? (phase == MovePhase.COPY ? MoveState.BULK : MoveState.FINAL) : MoveState.FAILED);
            LOG.log(ok ? System.Logger.Level.INFO : System.Logger.Level.WARNING, b + ": " + (ok ?
                (phase == MovePhase.COPY ? "bulk passes done" : "the frozen delta copied") + " (" +
                r.report().passes() + " passes, " + r.report().keysCopied() + " keys, " + r.report().bytesCopied() +
                " bytes)" : "the copy failed: " + (t != null ? t.toString() : r.reason())) + "; reported " +
                said.get(id).state().json());
        }
        report();
    }

    /**
     * This node as the source group's primary of {@code b} in FREEZE: freezes the batch's segments, in one call over
     * one set of backup sessions, tried again a few times (a freeze is idempotent).
     */
    private void freeze(final ClusterMap decided, final MoveBatch b)
    {
        final long start = System.nanoTime();
        final long[] segments = new long[b.size()];
        for (int i = 0; i < b.size(); i++)
        {
            segments[i] = decided.segmentOf(b.partition(i));
        }
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                node.freeze(segments, decided.epoch());
                break;
            }
            catch (final FreezeCancelledException e)
            {
                LOG.log(System.Logger.Level.INFO, b + ": " + e.getMessage());
                return;
            }
            catch (final RuntimeException e)
            {
                if (attempt >= FREEZE_TRIES || !stillFreezing(b.id()))
                {
                    synchronized (this)
                    {
                        if (stillFreezing(b.id()))
                        {
                            say(b, MoveState.FAILED);
                        }
                    }
                    LOG.log(System.Logger.Level.WARNING, b + ": the freeze failed " + attempt + " times: " +
                        e.getMessage() + "; reported failed");
                    report();
                    return;
                }
                try
                {
                    TimeUnit.MILLISECONDS.sleep(FREEZE_RETRY_MILLIS);
                }
                catch (final InterruptedException interrupted)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        final long nanos = System.nanoTime() - start;
        freezes.addAndGet(b.size());
        freezeNanos.addAndGet(nanos);
        synchronized (this)
        {
            frozen.add(b.id());
        }
        LOG.log(System.Logger.Level.INFO, b + ": froze " + b.size() + " segment(s) in " +
            TimeUnit.NANOSECONDS.toMicros(nanos) / 1000.0 + " ms");
    }

    private synchronized boolean stillFreezing(final long id)
    {
        final MoveBatch b = batch(map, id);
        return b != null && b.phase() == MovePhase.FREEZE && isPrimaryOf(map, b.source());
    }

    private CompletableFuture<Long> handOver(final Copy c)
    {
        if (c.handOver == null)
        {
            c.handOver = c.copy.handOver();
            c.handOver.whenComplete((bytes, t) -> LOG.log(t == null ? System.Logger.Level.INFO :
                System.Logger.Level.ERROR, c.batch + ": the copy's blocks handed over" + (t == null ? " (" + bytes +
                " spare bytes given back)" : " failed: " + t)));
        }
        return c.handOver;
    }

    /**
     * Aborts {@code c}: stops it and zeroes its target segments on every replica, tried again ({@link #ABORT_TRIES}
     * times, {@link #ABORT_RETRY_MILLIS} apart) when a replica could not be reached (the map that abandons the batch
     * may be fencing the copy's sessions with it just then); {@code c.abort} completes once it is done or given up.
     */
    private void abort(final Copy c)
    {
        if (c.abort == null)
        {
            c.abort = new CompletableFuture<>();
            aborting.add(c.abort);
            tryAbort(c, 1);
        }
    }

    private void tryAbort(final Copy c, final int attempt)
    {
        c.copy.abort().whenCompleteAsync((r, t) ->
        {
            final boolean done = t == null && r.outcome() == PartitionCopier.Outcome.ABORTED;
            if (!done && attempt < ABORT_TRIES)
            {
                LOG.log(System.Logger.Level.WARNING, c.batch + ": the abort did not finish (attempt " + attempt + "): " +
                    (t != null ? t : r.reason()) + "; tried again in " + ABORT_RETRY_MILLIS + " ms");
                worker.schedule(() -> tryAbort(c, attempt + 1), ABORT_RETRY_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            c.copy.close();
            if (done)
            {
                c.abort.complete(r);
            }
            else
            {
                LOG.log(System.Logger.Level.ERROR, c.batch + ": the abort did not finish in " + ABORT_TRIES +
                    " attempts: " + (t != null ? t : r.reason()) + "; its mover grants stay held, and a copy " +
                    "waiting for it reports failed");
                c.abort.completeExceptionally(new IllegalStateException("the abort of " + c.batch + " did not finish"));
            }
        }, worker);
    }

    private void say(final MoveBatch b, final MoveState state)
    {
        said.put(b.id(), new Said(b.phase(), state));
    }

    /** Writes what this node says for the newest map (nothing when it never said anything and says nothing now). */
    private void report()
    {
        final long epoch;
        final Map<Long, MoveState> batches = new TreeMap<>();
        synchronized (this)
        {
            if (map == null)
            {
                return;
            }
            epoch = map.epoch();
            said.forEach((id, s) -> batches.put(id, s.state()));
            for (final Retiring w : retiring)
            {
                final long id = w.segment.batch();
                if (retiring.stream().allMatch(o -> o.segment.batch() != id || o.reclaimed))
                {
                    batches.put(id, MoveState.RECLAIMED);
                }
            }
            if (batches.isEmpty() && !reportedSomething)
            {
                return;
            }
        }
        try
        {
            reporter.report(epoch, batches);
            synchronized (this)
            {
                reportedSomething = !batches.isEmpty();
                reportRetryMillis = REPORT_RETRY_MILLIS;
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception e)
        {
            final long delay;
            synchronized (this)
            {
                if (retryScheduled)
                {
                    return;
                }
                retryScheduled = true;
                delay = reportRetryMillis;
                reportRetryMillis = Math.min(MAX_REPORT_RETRY_MILLIS, 2 * reportRetryMillis);
            }
            LOG.log(System.Logger.Level.WARNING, "move report for epoch " + epoch + " not written: " + e.getMessage() +
                "; retrying in " + delay + " ms");
            worker.schedule(() ->
            {
                synchronized (this)
                {
                    retryScheduled = false;
                }
                report();
            }, delay, TimeUnit.MILLISECONDS);
        }
    }

    /** What the copier of {@code b} needs, from {@code current}: the source primary, segments and this group's chain. */
    private PartitionMove moveOf(final ClusterMap current, final MoveBatch b)
    {
        final ReplicaGroup source = current.groupById(b.source());
        final ReplicaGroup target = current.groupById(b.target());
        if (source == null || source.lost())
        {
            throw new IllegalStateException("its source group " + b.source() + " has no primary");
        }
        final long[] sourceSegments = new long[b.size()];
        for (int i = 0; i < b.size(); i++)
        {
            sourceSegments[i] = current.segmentOf(b.partition(i));
        }
        final List<InetSocketAddress> backups = new ArrayList<>();
        for (int i = 1; i < target.memberCount(); i++)
        {
            backups.add(address(current.node(target.member(i))));
        }
        return new PartitionMove(address(current.node(source.primary())), source.id(), b.phaseEpoch(),
            current.partitionCount(), b.partitions(), sourceSegments, b.segments(), backups);
    }

    private static InetSocketAddress address(final ClusterNode n)
    {
        return new InetSocketAddress(n.host(), n.port());
    }

    private boolean isPrimaryOf(final ClusterMap current, final int groupId)
    {
        final ReplicaGroup g = current.groupById(groupId);
        return g != null && !g.lost() && g.primary() == nodeId;
    }

    /** Whether {@code b}'s partitions belong to its target group in {@code next} (OPEN, or a map after it). */
    private static boolean openedHere(final ClusterMap next, final MoveBatch b)
    {
        if (next.isSimple())
        {
            return false;
        }
        final ReplicaGroup g = next.groupFor(b.partition(0));
        return g != null && g.id() == b.target();
    }

    private static MoveBatch batch(final ClusterMap m, final long id)
    {
        return m == null || m.isSimple() ? null : m.moves().batch(id);
    }

    /** Stops the worker and the copies under way (their grants stay: the node is closing). */
    @Override
    public void close()
    {
        worker.shutdownNow();
        synchronized (this)
        {
            for (final Copy c : copies.values())
            {
                c.copy.close();
            }
            copies.clear();
            taken.clear();
        }
    }
}
