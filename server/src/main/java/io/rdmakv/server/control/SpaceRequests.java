package io.rdmakv.server.control;

import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.FreeJob;
import io.rdmakv.server.space.IndexCensus;
import io.rdmakv.server.space.IndexScanner;

/**
 * The control agent's space policy: who gets how much (ALLOC), what a finished FREE counts as, and what
 * STATS says (from an {@link IndexCensus}, never a walk of the index per request). Agent thread only.
 *
 * <ul>
 * <li><b>Quota</b>: a session holds at most {@code sessionQuota} bytes granted and not freed (what
 *     {@link DataAreaAllocator#heldBy} counts); an ALLOC beyond it is refused with
 *     {@link ReasonCode#QUOTA_EXCEEDED}, whose text names the quota and what the session holds, so that a
 *     client can tell it from a full node ({@link ReasonCode#OUT_OF_MEMORY}).</li>
 * <li><b>Grant cap</b>: a grant is at least what was asked for and otherwise at most the chunk size, the
 *     quota left and half the data area, whichever is least: one small ALLOC never takes the whole data
 *     area, whatever the chunk size.</li>
 * </ul>
 */
final class SpaceRequests
{
    private final DataAreaAllocator allocator;
    private final ServerCounters counters;
    private final RegionGeometry geometry;
    private final long chunkSize;
    private final long sessionQuota;
    private final IndexCensus census;
    private boolean censusWanted;

    SpaceRequests(final DataAreaAllocator allocator, final ServerCounters counters, final RegionGeometry geometry,
        final long sessionQuota, final IndexCensus census)
    {
        this.allocator = allocator;
        this.counters = counters;
        this.geometry = geometry;
        this.chunkSize = geometry.chunkSize();
        this.sessionQuota = sessionQuota;
        this.census = census;
    }

    /** The census (the segment loads it publishes, the segments it watches: {@link IndexCensus#watch}). */
    IndexCensus census()
    {
        return census;
    }

    /** Census passes completed so far: a STATS remembers this on arrival. */
    long censusPasses()
    {
        return census.passes();
    }

    /**
     * Reads {@link ControlAgent#CENSUS_GROUPS_PER_CYCLE} more groups if a STATS waits for a count or the segment
     * loads are due ({@link IndexCensus#loadDue}); returns 1 if so.
     */
    int advanceCensus(final long nowNanos)
    {
        if (!censusWanted && !census.loadDue(nowNanos))
        {
            return 0;
        }
        censusWanted = false;
        census.advance(ControlAgent.CENSUS_GROUPS_PER_CYCLE, nowNanos);
        if (!census.inProgress())
        {
            counters.increment(ServerCounter.INDEX_CENSUS_PASSES);
        }
        return 1;
    }

    /**
     * The answer to a STATS that arrived when {@code passesAtArrival} census passes were complete: from a
     * count at most {@link ControlAgent#STATS_MAX_AGE_NANOS} old or from a pass completed since it arrived;
     * null when it must wait for the pass under way (which then advances each cycle). {@code writeWindows}:
     * see {@link StatsOkMessage#writeWindows}; {@code moves}: this node's part in partition moves, from the same
     * count.
     */
    StatsOkMessage stats(final StatsMessage stats, final long passesAtArrival, final long nowNanos,
        final int clients, final long writeWindows, final MoveProgressSource moves)
    {
        if (!census.isFresh(nowNanos) && census.passes() == passesAtArrival)
        {
            censusWanted = true;
            return null;
        }
        counters.increment(ServerCounter.STATS_REQUESTS);
        final long total = allocator.capacity();
        final long free = allocator.freeBytes();
        return new StatsOkMessage(stats.requestId(), total, total - free - allocator.graceBytes(), free,
            census.usedSlots(), geometry.slotCount(), clients, allocator.grantedExtents(), writeWindows,
            moves.progress(census.load()));
    }

    /**
     * Grants {@code session} an extent, or says why not (ALLOC_OK or ALLOC_FAILED); the ALLOC_OK tells the
     * client to write the extent with {@code writeRkey} (see {@link GrantWindows}).
     */
    ControlMessage allocate(final long session, final AllocMessage alloc, final long nowNanos, final int writeRkey)
    {
        counters.increment(ServerCounter.ALLOC_REQUESTS);
        final long min = alloc.requestedBytes();
        if (min <= 0 || min > allocator.capacity())
        {
            counters.increment(ServerCounter.ALLOC_FAILURES);
            return CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.REQUEST_TOO_LARGE.code(),
                "ALLOC of " + min + " bytes: a grant is 1.." + allocator.capacity() + " bytes");
        }
        final long held = allocator.heldBy(session);
        final long quotaLeft = Math.max(0, sessionQuota - held);
        final long need = KvBlockDescriptor.align((int)Math.min(min, Integer.MAX_VALUE / 2));
        if (need > quotaLeft && allocator.freeBytes() < need)
        {
            counters.increment(ServerCounter.ALLOC_FAILURES);
            return full(alloc, min);
        }
        if (need > quotaLeft)
        {
            counters.increment(ServerCounter.ALLOC_FAILURES);
            counters.increment(ServerCounter.ALLOCS_REFUSED_QUOTA);
            return CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.QUOTA_EXCEEDED.code(),
                "session quota of " + sessionQuota + " bytes: the session holds " + held + " bytes granted and " +
                "asked for " + min + " more (the node has " + allocator.freeBytes() + " bytes free)");
        }
        final long cap = Math.min(Math.min(chunkSize, quotaLeft), allocator.capacity() / 2);
        final Extent extent = allocator.grant(min, Math.max(min, cap), nowNanos, session);
        if (extent == null)
        {
            counters.increment(ServerCounter.ALLOC_FAILURES);
            return full(alloc, min);
        }
        return new AllocOkMessage(alloc.requestId(), extent.offset(), extent.length(), writeRkey);
    }

    private CodedRefusalMessage full(final AllocMessage alloc, final long min)
    {
        return CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.OUT_OF_MEMORY.code(),
            "data area full: no free range of " + min + " bytes (" + allocator.freeBytes() +
            " bytes free, " + allocator.graceBytes() + " waiting out the grace period)");
    }

    /** What each of {@code sessions} holds now (for the departure scan), in one walk of the grants. */
    java.util.Map<Long, java.util.List<Extent>> grantsOf(final java.util.Collection<Long> sessions)
    {
        return allocator.grantsOf(sessions);
    }

    /**
     * Reclaims what a departed session held that no slot references ({@code found}: what the departure scan
     * found inside its grants), counts the insert locks the scan released; says what.
     */
    String reclaim(final long session, final IndexScanner.Departure found, final long nowNanos)
    {
        final long reclaimed = allocator.reclaim(session, found.liveBlocks(), nowNanos);
        // closed last: whoever sees the session counted closed (a scrape, a test) sees what it reclaimed
        counters.add(ServerCounter.RECLAIMED_BYTES, reclaimed);
        counters.add(ServerCounter.LOCKS_RELEASED, found.locksReleased());
        counters.increment(ServerCounter.SESSIONS_CLOSED);
        return "reclaimed " + reclaimed + " bytes, released " + found.locksReleased() + " insert lock(s)";
    }

    /** Counts a session closed without a scan of its own: the allocator is rebuilt from the index right after. */
    String closedForRebuild()
    {
        counters.increment(ServerCounter.SESSIONS_CLOSED);
        return "its space and locks go with the allocator's rebuild from the index";
    }

    /**
     * Counts a FREE whose every entry has its verdict (see {@link FreeJob} for the rules); {@code request}:
     * a client's FREE, not the node's own replay of deferred entries.
     */
    void freed(final FreeJob job, final boolean request)
    {
        if (request)
        {
            counters.increment(ServerCounter.FREE_REQUESTS);
        }
        counters.add(ServerCounter.FREES_DEFERRED, job.count(FreeJob.Verdict.DEFERRED));
        counters.add(ServerCounter.FREED_BLOCKS, job.count(FreeJob.Verdict.FREED));
        final int notGranted = job.count(FreeJob.Verdict.NOT_GRANTED);
        final int foreign = job.count(FreeJob.Verdict.FOREIGN);
        final int live = job.count(FreeJob.Verdict.LIVE);
        counters.add(ServerCounter.REFUSED_FREES, notGranted + foreign + live);
        counters.add(ServerCounter.FREES_REFUSED_NOT_GRANTED, notGranted);
        counters.add(ServerCounter.FREES_REFUSED_FOREIGN, foreign);
        counters.add(ServerCounter.FREES_REFUSED_LIVE, live);
    }

    /** Publishes the allocator's gauges (free, grace, granted) into the counters. Agent thread only. */
    void publish()
    {
        counters.set(ServerCounter.FREE_BYTES, allocator.freeBytes());
        counters.set(ServerCounter.GRACE_BYTES, allocator.graceBytes());
        counters.set(ServerCounter.GRACE_RANGES, allocator.graceRanges());
        counters.set(ServerCounter.GRANTED_EXTENTS, allocator.grantedExtents());
    }
}
