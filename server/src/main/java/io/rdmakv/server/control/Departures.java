package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the control agent tears sessions down. Fence first: a session's queue pair goes to ERR (nothing more
 * arrives, nothing is answered, and a client that wakes up later cannot write or take a lock) and its
 * memory window is deallocated ({@link GrantWindows#revoke}), then the
 * FREEs (and BYE) it sent before are still served in its turns, then {@link #drained} releases its insert
 * locks and takes what it held that nothing references. Agent thread only.
 *
 * <p>Sessions fenced together (every session of an older epoch when a new cluster map is applied, every
 * session at shutdown) form one {@link Batch}: they are reclaimed together, with one walk of the index for
 * the lot, once the last of them has had its waiting FREEs served. A single departure is a batch of one. The
 * walk is {@link DepartureWalk}: a budget of groups per duty cycle, shared by every batch waiting (one that
 * arrives while it runs joins it), so a map change costs one walk however many sessions it fences, and sessions
 * that come and go as fast as a client can open them cost the control thread a bounded slice of each cycle.
 *
 * <p>On the primary of a replica group with backups ({@link ChainSweeps}), a drained batch that held space is
 * not reclaimed at once: its sessions' grants stay held while the backups fence their writers and are swept for a
 * write one of them left between its first backup's CAS and this node's (put back there, last backup first), and
 * the reclaim runs when the sweep hands the batch back. Their insert locks are released at once, by a walk of the
 * lock words only. Otherwise (no replication, a group of one, a batch that held nothing, shutdown, a rebuild of the
 * allocator) it is reclaimed at once.
 */
final class Departures
{
    private static final System.Logger LOG = System.getLogger(Departures.class.getName());

    private final SessionRegistry sessions;
    private final DeferredFrees deferred;
    private final SpaceRequests space;
    private final IndexScanner scanner;
    private final NanoClock clock;
    private final GrantWindows windows;
    private final DepartureWalk walk;
    /** Sweeps a primary's backups before a batch is reclaimed; null: never (set once, agent thread). */
    private ChainSweeps sweeps;

    /** Sessions fenced together, reclaimed by one scan once none of them has requests waiting. */
    static final class Batch
    {
        private final List<ServerSession> drained = new ArrayList<>();
        private final boolean scan;
        private final boolean closing;
        private int waiting;

        private Batch(final boolean scan, final boolean closing)
        {
            this.scan = scan;
            this.closing = closing;
        }
    }

    Departures(final SessionRegistry sessions, final DeferredFrees deferred, final SpaceRequests space,
        final IndexScanner scanner, final NanoClock clock, final GrantWindows windows)
    {
        this.windows = windows;
        this.sessions = sessions;
        this.deferred = deferred;
        this.space = space;
        this.scanner = scanner;
        this.clock = clock;
        this.walk = new DepartureWalk(scanner);
    }

    /** Walks the index on for departed sessions, at most {@code budget} groups; returns the work done. */
    int step(final long budget)
    {
        return walk.step(budget);
    }

    /** Sweeps the backups with {@code chainSweeps} before a batch is reclaimed (see the class comment). */
    void sweepWith(final ChainSweeps chainSweeps)
    {
        this.sweeps = chainSweeps;
    }

    /** Fences {@code session} for {@code why}; reclaims at once unless FREEs (or BYE) wait ({@code closing}: none do). */
    void depart(final ServerSession session, final String why, final boolean closing)
    {
        departAll(List.of(session), why, closing, true);
    }

    /**
     * Fences every session of {@code fenced} for {@code why}, as one batch. {@code closing}: their waiting
     * requests are dropped (shutdown, or a rebuild of the allocator follows). {@code scan} false: no walk of
     * the index for them (a rebuild of the allocator follows, which walks it once and releases every lock).
     */
    void departAll(final Collection<ServerSession> fenced, final String why, final boolean closing, final boolean scan)
    {
        final Batch batch = new Batch(scan, closing);
        for (final ServerSession session : fenced)
        {
            if (session.departed())
            {
                continue;
            }
            session.markDeparted(why);
            deferred.forget(session.id());
            sessions.remove(session);
            session.qp().modifyToError();
            windows.revoke(session);
            session.departure = why;
            session.batch = batch;
            batch.waiting++;
            session.inbox.removeIf(p -> p.free() == null && !(p.message() instanceof ByeMessage) || closing);
        }
        for (final ServerSession session : fenced)
        {
            if (session.batch == batch && session.inbox.isEmpty())
            {
                drained(session);
            }
        }
    }

    /**
     * A departed session's last requests were served: once every session of its batch is this far, their
     * locks are released and their unreferenced space reclaimed, with one walk of the index (on a primary with
     * backups, once the backups are swept: see the class comment).
     */
    void drained(final ServerSession session)
    {
        final Batch batch = session.batch;
        if (batch == null || session.departure == null)
        {
            return;
        }
        batch.drained.add(session);
        if (--batch.waiting > 0)
        {
            return;
        }
        final List<Long> ids = new ArrayList<>();
        final List<String> whys = new ArrayList<>();
        for (final ServerSession s : batch.drained)
        {
            whys.add(s.departure);
            s.departure = null;
            s.batch = null;
            s.close();
            // FREEs it sent before departing may have deferred blocks of its own latest extent: the scan takes them
            deferred.forget(s.id());
            ids.add(s.id());
        }
        if (batch.scan && !batch.closing && sweeps != null && sweeps.needed())
        {
            final Map<Long, List<Extent>> held = space.grantsOf(ids);
            if (held.values().stream().anyMatch(grants -> !grants.isEmpty()))
            {
                // their insert locks go now (a walk of the lock words only): inserts must not wait for the sweep
                final Map<Long, List<Extent>> none = new HashMap<>();
                ids.forEach(id -> none.put(id, List.of()));
                final long[] writers = batch.drained.stream().mapToLong(ServerSession::writerId).distinct().toArray();
                walk.submit(none, locks -> sweeps.submit(held, writers, () -> reclaim(batch, ids, whys, locks)));
                return;
            }
        }
        reclaim(batch, ids, whys, Map.of());
    }

    /**
     * Releases the insert locks of a drained batch's sessions ({@code ids}) and reclaims what no slot references;
     * {@code released}: the locks released for them before (while the backups were swept), counted with the rest.
     */
    private void reclaim(final Batch batch, final List<Long> ids, final List<String> whys,
        final Map<Long, IndexScanner.Departure> released)
    {
        for (final Long id : ids)
        {
            // FREEs of blocks of their latest extents deferred while the backups were swept: the scan takes them
            deferred.forget(id);
        }
        if (!batch.scan)
        {
            reclaimed(batch, ids, whys, released, Map.of());
        }
        else if (batch.closing)
        {
            // the agent's loop has stopped: nobody waits behind this walk
            reclaimed(batch, ids, whys, released, scanner.scanDepartures(space.grantsOf(ids)));
        }
        else
        {
            walk.submit(space.grantsOf(ids), found -> reclaimed(batch, ids, whys, released, found));
        }
    }

    /** Releases what {@code found} says the batch's sessions held and nothing references. */
    private void reclaimed(final Batch batch, final List<Long> ids, final List<String> whys,
        final Map<Long, IndexScanner.Departure> released, final Map<Long, IndexScanner.Departure> found)
    {
        final long now = clock.nanoTime();
        for (int i = 0; i < batch.drained.size(); i++)
        {
            final ServerSession s = batch.drained.get(i);
            final IndexScanner.Departure scanned = found.get(s.id());
            final IndexScanner.Departure before = released.get(s.id());
            final IndexScanner.Departure d = scanned == null || before == null ? scanned :
                new IndexScanner.Departure(scanned.liveBlocks(), scanned.locksReleased() + before.locksReleased());
            final String what = batch.scan ? space.reclaim(s.id(), d, now) : space.closedForRebuild();
            LOG.log(System.Logger.Level.DEBUG, s + " departed because " + whys.get(i) + "; " + what);
        }
        space.publish();
    }
}
