package io.rdmakv.client.internal;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

/**
 * Where a node's index and data area are, as a lane addresses them: remote addresses of bucket
 * groups, slots, the insert lock of a group, and blocks.
 *
 * <p>The insert lock of a group is the header word of its second bucket (the first bucket's header
 * is kept for online resizing). Every insert of a key takes the lock of the key's first candidate
 * group, so two inserts of one key never race into two slots.
 */
final class RemoteIndex
{
    private final long indexAddress;
    private final int indexRkey;
    private final long dataAddress;
    private final int dataRkey;
    private final long dataLength;
    private final RegionGeometry geometry;
    private final long groupCount;

    RemoteIndex(final long indexAddress, final int indexRkey, final long dataAddress, final int dataRkey,
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

    long groupCount()
    {
        return groupCount;
    }

    RegionGeometry geometry()
    {
        return geometry;
    }

    long groupAddress(final long group)
    {
        return indexAddress + geometry.groupRegionOffset(group);
    }

    static long slotAddress(final long groupAddress, final int slot)
    {
        return groupAddress + BucketDescriptor.slotOffsetInGroup(slot);
    }

    static long lockAddress(final long groupAddress)
    {
        return groupAddress + BucketDescriptor.bucketOffsetInGroup(1) + BucketDescriptor.BUCKET_HEADER_OFFSET;
    }

    int indexRkey()
    {
        return indexRkey;
    }

    long blockAddress(final long slotWord)
    {
        return dataAddress + SlotWord.blockOffset(slotWord);
    }

    int dataRkey()
    {
        return dataRkey;
    }

    long dataAddress()
    {
        return dataAddress;
    }

    /** True when the word names a block inside the data area (a corrupted slot does not). */
    boolean isPlausible(final long slotWord)
    {
        return SlotWord.isWithin(slotWord, dataLength);
    }
}
