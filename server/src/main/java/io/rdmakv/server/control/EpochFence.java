package io.rdmakv.server.control;

import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;

import java.util.ArrayList;
import java.util.List;

/**
 * The control agent's side of cluster maps: the epoch floor (sessions opened under an older epoch are
 * not served), the bulk fence of every older session when a map is applied ({@link #apply}), the fence of
 * one registered late under an older epoch ({@link #registered}), and the rebuild of the allocator from
 * the index when this node just became its group's primary. Changed on the agent's thread only; the floor
 * is read from any thread.
 */
final class EpochFence
{
    private static final System.Logger LOG = System.getLogger(EpochFence.class.getName());

    private final SessionRegistry sessions;
    private final Departures departures;
    private final DataAreaAllocator allocator;
    private final IndexScanner scanner;
    private final DeferredFrees deferred;
    private final SpaceRequests space;
    private final ServerCounters counters;
    /** Sessions opened under an older epoch than this are fenced (see {@link #apply}). */
    private volatile long floor;

    EpochFence(final SessionRegistry sessions, final Departures departures, final DataAreaAllocator allocator,
        final IndexScanner scanner, final DeferredFrees deferred, final SpaceRequests space,
        final ServerCounters counters)
    {
        this.sessions = sessions;
        this.departures = departures;
        this.allocator = allocator;
        this.scanner = scanner;
        this.deferred = deferred;
        this.space = space;
        this.counters = counters;
    }

    /** The lowest epoch a session may have been opened under and still be served. */
    long floor()
    {
        return floor;
    }

    /**
     * A session was registered: one opened under a map whose epoch a newer one replaced while it was being
     * set up is fenced here (the bulk fence may have walked the sessions before it was added).
     */
    void registered(final ServerSession session)
    {
        if (session.epoch() < floor && !session.departed())
        {
            counters.increment(ServerCounter.SESSIONS_FENCED_BY_EPOCH);
            departures.departAll(List.of(session), "it was opened under epoch " + session.epoch() +
                " and epoch " + floor + " is applied", false, true);
        }
    }

    /**
     * Applies a map of epoch {@code epoch}: fences every session opened under an older one in one batch and,
     * with {@code rebuildAllocator}, drops their waiting requests and rebuilds the allocator from one index
     * scan instead of reclaiming them. Returns the number of sessions fenced.
     */
    int apply(final long epoch, final boolean rebuildAllocator)
    {
        floor = Math.max(floor, epoch);
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
        return older.size();
    }

    /**
     * Rebuilds the allocator from one walk of the index: blocks that slots reference are live (granted to
     * nobody), everything else is free, insert-lock words are cleared. With no session of an older epoch
     * left and none of the new one admitted.
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
}
