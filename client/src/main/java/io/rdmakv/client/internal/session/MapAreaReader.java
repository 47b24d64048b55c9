package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.MapAreaDescriptor;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.Status;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads a node's map area ({@link MapAreaDescriptor}) with one-sided READs on a session's own queue pair, into the
 * lane's write-block buffer (scratch whenever the lane is not in an operation): the header, then the buffer it
 * names and the header again in one doorbell. A header being written, a sequence that moved in between or a CRC
 * that does not hold reads again, {@value #ATTEMPTS} times at most. Control path: the caller holds the session
 * ({@link Session#tryEnter()}); it allocates.
 */
final class MapAreaReader
{
    /** How many times a torn read is read again before the fetch gives up (the caller then probes). */
    static final int ATTEMPTS = 4;
    private static final int FIRST = LaneBuffers.WRITE_BLOCK;
    private static final int BUFFER = FIRST + MapAreaDescriptor.HEADER_LENGTH;
    private static final int SECOND = BUFFER + MapAreaDescriptor.BUFFER_LENGTH;

    static
    {
        if (SECOND + MapAreaDescriptor.HEADER_LENGTH > LaneBuffers.CONTROL)
        {
            throw new IllegalStateException("a map area read does not fit the lane's write-block buffer");
        }
    }

    /** A fetched map, or why there is none. */
    record Fetched(ClusterMap map, String why)
    {
    }

    private MapAreaReader()
    {
    }

    /** READs of a node's memory into the lane's (a session's queue pair; a test's fake). */
    interface Reads extends AutoCloseable
    {
        /** Appends a READ of {@code length} bytes at {@code remoteAddress} into the lane's memory at {@code offset}. */
        void read(int offset, int length, long remoteAddress, int rkey);

        /** Posts the READs appended and waits for them: a {@link Status}. */
        int ring();

        /** The lane's memory. */
        MemorySegment memory();

        @Override
        void close();
    }

    static Fetched fetch(final NodeSession node)
    {
        final RemoteRegion area = node.hello().mapArea();
        if (area == null)
        {
            return new Fetched(null, "its HELLO_OK named no map area");
        }
        final RemoteReads remote = RemoteReads.on(node, 2);
        return fetch(area, new Reads()
        {
            @Override
            public void read(final int offset, final int length, final long remoteAddress, final int rkey)
            {
                remote.read(node.io().localAddress(offset), length, node.io().lkey(), remoteAddress, rkey);
            }

            @Override
            public int ring()
            {
                return remote.ring();
            }

            @Override
            public MemorySegment memory()
            {
                return node.memory();
            }

            @Override
            public void close()
            {
                remote.close();
            }
        });
    }

    /** Reads the map area {@code area} with {@code reads} (closed afterwards). */
    static Fetched fetch(final RemoteRegion area, final Reads reads)
    {
        final MemorySegment mem = reads.memory();
        String why = null;
        try (reads)
        {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++)
            {
                reads.read(FIRST, MapAreaDescriptor.HEADER_LENGTH, area.address(), area.rkey());
                int rc = reads.ring();
                if (rc != Status.OK)
                {
                    return new Fetched(null, "the READ of its map area's header failed (status " + rc + ")");
                }
                final MemorySegment first = mem.asSlice(FIRST, MapAreaDescriptor.HEADER_LENGTH);
                final long sequence = MapAreaDescriptor.sequence(first, 0);
                if ((sequence & 1) != 0 || sequence == 0)
                {
                    why = sequence == 0 ? "its map area holds no map yet" : "the node was writing its map area";
                    continue;
                }
                final String header = MapAreaDescriptor.checkHeader(first);
                if (header != null)
                {
                    return new Fetched(null, header); // a whole header no node writes: reading again will not help
                }
                final int length = MapAreaDescriptor.length(first, 0);
                final int buffer = MapAreaDescriptor.buffer(first, 0);
                reads.read(BUFFER, length, area.address() + MapAreaDescriptor.bufferOffset(buffer), area.rkey());
                reads.read(SECOND, MapAreaDescriptor.HEADER_LENGTH, area.address(), area.rkey());
                rc = reads.ring();
                if (rc != Status.OK)
                {
                    return new Fetched(null, "the READ of its map area's buffer failed (status " + rc + ")");
                }
                why = MapAreaDescriptor.check(first, mem.asSlice(SECOND, MapAreaDescriptor.HEADER_LENGTH),
                    mem.asSlice(BUFFER, length));
                if (why != null)
                {
                    continue;
                }
                final byte[] bytes = mem.asSlice(BUFFER, length).toArray(ValueLayout.JAVA_BYTE);
                final ClusterMap map;
                try
                {
                    map = ClusterMapCodec.decode(bytes);
                }
                catch (final MalformedMessageException | IllegalArgumentException e)
                {
                    return new Fetched(null, "its map area holds no map this build reads: " + e.getMessage());
                }
                final long epoch = MapAreaDescriptor.epoch(first, 0);
                if (map.epoch() != epoch)
                {
                    return new Fetched(null, "its map area's header says epoch " + epoch + ", the map in it " +
                        map.epoch());
                }
                return new Fetched(map, null);
            }
        }
        catch (final RuntimeException e)
        {
            return new Fetched(null, "reading its map area failed: " + e.getMessage());
        }
        return new Fetched(null, why + ", " + ATTEMPTS + " times");
    }
}
