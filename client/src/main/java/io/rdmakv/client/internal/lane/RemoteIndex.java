package io.rdmakv.client.internal.lane;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

/**
 * Where a node's index and data area are, as a lane addresses them: remote addresses of bucket
 * groups and blocks, and the memory regions' rkeys (from HELLO_OK).
 */
public final class RemoteIndex
{
    private final long indexAddress;
    private final int indexRkey;
    private final long dataAddress;
    private final int dataRkey;
    private final long dataLength;
    private final RegionGeometry geometry;
    private final long groupCount;

    public RemoteIndex(final long indexAddress, final int indexRkey, final long dataAddress, final int dataRkey,
        final RegionGeometry geometry)
    {
        this.indexAddress = indexAddress;
        this.indexRkey = indexRkey;
        this.dataAddress = dataAddress;
        this.dataRkey = dataRkey;
        this.dataLength = geometry.dataLength();
        this.geometry = geometry;
        this.groupCount = geometry.groupCount();
    }

    /** The index's remote address: slot addresses minus this are the same on every replica. */
    public long indexAddress()
    {
        return indexAddress;
    }

    long groupCount()
    {
        return groupCount;
    }

    public RegionGeometry geometry()
    {
        return geometry;
    }

    long groupAddress(final long group)
    {
        return indexAddress + geometry.groupRegionOffset(group);
    }

    public int indexRkey()
    {
        return indexRkey;
    }

    public long blockAddress(final long slotWord)
    {
        return dataAddress + SlotWord.blockOffset(slotWord);
    }

    public int dataRkey()
    {
        return dataRkey;
    }

    /** True when the word names a block inside the data area (a corrupted slot does not). */
    public boolean isPlausible(final long slotWord)
    {
        return SlotWord.isWithin(slotWord, dataLength);
    }
}
