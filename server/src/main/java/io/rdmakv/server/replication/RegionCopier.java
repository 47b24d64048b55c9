package io.rdmakv.server.replication;

import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * Makes this node's region equal to a primary's, for every slot and the block it references: the copy a node
 * runs while it is a copying member of a replica group (docs/design.md, "Copy and seal"). Each {@link
 * #pass} opens a session of its own with the primary, as a client does ({@link PeerSessions}: the cluster's auth
 * token, TLS), so that it is fenced with every other session of an older epoch and always talks to the
 * primary of the epoch it was started in; it then reads the primary's whole index, chunk by chunk, with
 * one-sided READs and writes what differs into this node's region with the CPU ({@link ChunkCopier}).
 *
 * <p>A pass while writers work leaves this node close to the primary; a pass while the group is sealed (no
 * write in flight) leaves it equal, except for blocks the primary holds damaged (counted in {@link
 * CopyReport#skippedBlocks()}, never copied). Passes are serialised; {@link #close} stops a pass at its next
 * chunk and then frees the copier's buffer.
 */
public final class RegionCopier implements AutoCloseable
{
    /** Bytes of the primary's index one READ takes (512 groups). */
    public static final int INDEX_CHUNK_BYTES = 64 * 1024;
    /** Bytes of blocks one chain of READs takes at most. */
    public static final int BLOCK_BUFFER_BYTES = 4 * 1024 * 1024;

    private final ProtectionDomain pd;
    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final PeerSessions peers;
    private final long graceNanos;
    private final IndexSegments segments;
    private final Object passLock = new Object();
    private CopyBuffer buffer;
    private NanoClock clock = SystemNanoClock.INSTANCE;
    private volatile boolean closing;

    /**
     * A copier into {@code region} (the whole region of this node, header at 0, laid out as {@code geometry}),
     * dialling primaries through {@code context} and {@code pd} (this node's) with {@code config}'s auth token,
     * TLS settings and grace period.
     */
    public RegionCopier(final Context context, final ProtectionDomain pd, final MemorySegment region,
        final RegionGeometry geometry, final ServerConfig config)
    {
        this(context, pd, region, geometry, IndexSegments.whole(geometry), config);
    }

    /** As above, checking that each copied block's key belongs in its slot's group by {@code segments}. */
    public RegionCopier(final Context context, final ProtectionDomain pd, final MemorySegment region,
        final RegionGeometry geometry, final IndexSegments segments, final ServerConfig config)
    {
        if (region.byteSize() < geometry.regionLength())
        {
            throw new IllegalArgumentException("a region of " + region.byteSize() + " bytes is shorter than its geometry's " +
                geometry.regionLength());
        }
        this.pd = pd;
        this.region = region;
        this.geometry = geometry;
        this.segments = segments;
        this.peers = new PeerSessions(context, pd, geometry, config);
        this.graceNanos = config.graceNanos();
    }

    /**
     * One diff pass against the primary listening at {@code primary} (its bootstrap address); blocks until done.
     *
     * @throws IllegalStateException when the primary's region geometry differs from this node's (both named), or
     *     the copier is closed
     * @throws CopyFailedException when the session cannot be opened or breaks, or the copier is closed meanwhile
     */
    public CopyReport pass(final InetSocketAddress primary)
    {
        return pass(primary, 0L);
    }

    /**
     * {@link #pass(InetSocketAddress)} for the map of epoch {@code epoch}: fails (CopyFailedException) when the
     * primary still serves an older map. A sealed group's last pass must not start before its primary fenced
     * the older epochs' writers, or a write acknowledged after the pass could be missing here.
     */
    public CopyReport pass(final InetSocketAddress primary, final long epoch)
    {
        synchronized (passLock)
        {
            if (closing)
            {
                throw new IllegalStateException("the region copier is closed");
            }
            final long start = System.nanoTime();
            final NodeSession session = open(primary);
            try (session; RemoteReads reads = RemoteReads.on(session, RemoteReads.maxCapacity()))
            {
                peers.checkGeometry(primary, session.hello(), "copy from primary");
                final long served = PeerSessions.servedEpoch(session.hello());
                if (served < epoch)
                {
                    throw new CopyFailedException("primary " + primary + " serves map epoch " + served +
                        ", the copy is for epoch " + epoch + ": not yet");
                }
                if (buffer == null)
                {
                    buffer = new CopyBuffer(pd, INDEX_CHUNK_BYTES, RemoteReads.maxCapacity(), BLOCK_BUFFER_BYTES);
                }
                final CopyTally tally = new CopyTally();
                new ChunkCopier(primary, session, reads, region, geometry, segments, buffer, tally, graceNanos, () -> closing,
                    clock)
                    .copyAll();
                return tally.report(System.nanoTime() - start);
            }
        }
    }

    /** The geometry this node's region has (a primary's must equal it). */
    public RegionGeometry geometry()
    {
        return geometry;
    }

    /** Times chunks with {@code source} instead of the system clock (tests: a chunk that seems slow is redone). */
    void clock(final NanoClock source)
    {
        synchronized (passLock)
        {
            clock = source;
        }
    }

    private NodeSession open(final InetSocketAddress primary)
    {
        try
        {
            return peers.open(primary);
        }
        catch (final SessionRefusedException | SessionFailedException e)
        {
            throw new CopyFailedException("cannot open a session with primary " + primary + " to copy from: " +
                e.getMessage(), e);
        }
    }

    /** Stops a pass in progress at its next chunk, waits for it, and frees the buffer. */
    @Override
    public void close()
    {
        closing = true;
        synchronized (passLock)
        {
            if (buffer != null)
            {
                buffer.close();
                buffer = null;
            }
        }
    }
}
