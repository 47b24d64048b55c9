package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.peer.Status;
import io.rdmakv.peer.SessionIo;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The doorbells of a batch: one chain of up to {@code 3 * BATCH} requests (READs; a PUT's WRITEs and CASes), each
 * aimed at key {@code i}'s own buffers ({@link LaneBuffers#batchGroups}, {@link LaneBuffers#batchSlot},
 * {@link LaneBuffers#batchBlock}, {@link LaneBuffers#batchWrite}, {@link LaneBuffers#batchCas}),
 * appended per key and rung once: a whole phase of a batch costs one round trip. The work requests are
 * allocated once per lane; a chain is relinked each time (its length varies).
 */
final class BatchRequests implements AutoCloseable
{
    private final SessionIo io;
    private final RemoteIndex remote;
    private final MemorySegment mem;
    private final SendWorkRequests wrs = SendWorkRequests.allocate(3 * LaneBuffers.BATCH, 1);
    private int count;

    BatchRequests(final LaneRequests requests, final MemorySegment mem)
    {
        this.io = requests.io();
        this.remote = requests.remote();
        this.mem = mem;
    }

    /** Starts a new chain. */
    void clear()
    {
        count = 0;
    }

    /** Appends READ slot and READ the block it names, for key {@code i}. */
    void readSlotAndBlock(final int i, final long slotAddress, final long word)
    {
        next().rdmaRead(io.localAddress(LaneBuffers.batchSlot(i)), BucketDescriptor.SLOT_LENGTH, io.lkey(),
            slotAddress, remote.indexRkey());
        readBlock(i, word);
    }

    /** Appends READ of both candidate groups of key {@code i}. */
    void readGroups(final int i, final KeyLocation key)
    {
        final int groups = LaneBuffers.batchGroups(i);
        next().rdmaRead(io.localAddress(groups), BucketDescriptor.GROUP_LENGTH, io.lkey(), key.group1Address(),
            remote.indexRkey());
        next().rdmaRead(io.localAddress(groups + BucketDescriptor.GROUP_LENGTH), BucketDescriptor.GROUP_LENGTH,
            io.lkey(), key.group2Address(), remote.indexRkey());
    }

    /** Appends READ of the block {@code word} names (at most {@link LaneBuffers#BATCH_BLOCK_LENGTH}) for key {@code i}. */
    void readBlock(final int i, final long word)
    {
        next().rdmaRead(io.localAddress(LaneBuffers.batchBlock(i)), SlotWord.blockLength(word), io.lkey(),
            remote.blockAddress(word), remote.dataRkey());
    }

    /** Appends WRITE of key {@code i}'s new block to where {@code word} names, with the grant's {@code rkey}. */
    void writeBlock(final int i, final long word, final int rkey)
    {
        next().rdmaWrite(io.localAddress(LaneBuffers.batchWrite(i)), SlotWord.blockLength(word), io.lkey(),
            remote.blockAddress(word), rkey);
    }

    /** Appends CAS of the slot at {@code slotAddress} from {@code expected} to {@code swap}, for key {@code i}. */
    void casSlot(final int i, final long slotAddress, final long expected, final long swap)
    {
        next().compareAndSwap(io.localAddress(LaneBuffers.batchCas(i)), io.lkey(), slotAddress, remote.indexRkey(),
            expected, swap);
    }

    /** The word key {@code i}'s slot held when its CAS ran (the CAS won when it is the expected word). */
    long casRead(final int i)
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.batchCas(i));
    }

    /** Requests appended since {@link #clear()}. */
    int size()
    {
        return count;
    }

    /** Rings the chain (one doorbell, one round trip); nothing to ring is {@link Status#OK}. */
    int ring()
    {
        if (count == 0)
        {
            return Status.OK;
        }
        for (int i = 0; i < count; i++)
        {
            final boolean last = i == count - 1;
            wrs.at(i).sendFlags(last ? SendFlags.SIGNALED : 0).wrId(0).next(last ? null : wrs.at(i + 1));
        }
        return io.ring(wrs.at(0), wrs.at(count - 1));
    }

    /** The slot word key {@code i}'s slot READ returned. */
    long slotRead(final int i)
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.batchSlot(i));
    }

    int failure()
    {
        return io.failure();
    }

    private SendWorkRequest next()
    {
        return wrs.at(count++);
    }

    @Override
    public void close()
    {
        wrs.close();
    }
}
