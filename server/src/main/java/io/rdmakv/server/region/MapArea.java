package io.rdmakv.server.region;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.MapAreaDescriptor;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The node's map area ({@link MapAreaDescriptor}): a small memory region registered for remote READ only, holding
 * the binary map the node serves, which clients READ when a heartbeat answer says the node applied a newer map
 * than theirs. The node publishes each map it applies here, then stores its epoch in the region header's
 * {@code map_epoch} word, before it serves that map in HELLO_OK or names its epoch in a heartbeat answer.
 */
public final class MapArea implements AutoCloseable
{
    private static final int PAGE = 4096;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final MemoryRegion mr;
    private final MemorySegment regionHeader;
    private volatile long epoch;

    /** @param regionHeader the node's region (its header's {@code map_epoch} follows each publish; null: none) */
    public MapArea(final ProtectionDomain pd, final MemorySegment regionHeader)
    {
        this.regionHeader = regionHeader;
        segment = arena.allocate(MapAreaDescriptor.LENGTH, PAGE);
        try
        {
            mr = pd.registerMemory(segment, AccessFlags.REMOTE_READ);
        }
        catch (final RuntimeException e)
        {
            arena.close();
            throw e;
        }
    }

    /**
     * Publishes {@code map} (one caller at a time: the node applies maps on one thread) and then its epoch in the
     * region header. An older map than the one published is ignored.
     */
    public synchronized void publish(final ClusterMap map)
    {
        if (map.epoch() < epoch)
        {
            return;
        }
        MapAreaDescriptor.publish(segment, ClusterMapCodec.encode(map), map.epoch());
        if (regionHeader != null)
        {
            RegionHeader.mapEpoch(regionHeader, 0, map.epoch());
        }
        epoch = map.epoch();
    }

    /** The epoch of the map published last (0: none). */
    public long epoch()
    {
        return epoch;
    }

    /** The area as HELLO_OK names it. */
    public RemoteRegion remote()
    {
        return new RemoteRegion(mr.address(), mr.length(), mr.rkey());
    }

    /** The area's memory (tests). */
    public MemorySegment segment()
    {
        return segment;
    }

    @Override
    public void close()
    {
        mr.close();
        arena.close();
    }
}
