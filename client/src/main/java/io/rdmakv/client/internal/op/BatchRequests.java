package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.NodeCas;
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
    /** A chain's requests, then (node-assisted) the SLOT_CAS SEND its last one is linked on to. */
    private final SendWorkRequests wrs = SendWorkRequests.allocate(3 * LaneBuffers.BATCH + 1, 1);
    private static final int SEND = 3 * LaneBuffers.BATCH;
    private int count;
    /** The node-assisted write path's CASes (a batch's go in one SLOT_CAS behind its chain), or null. */
    private final NodeCas nodeCas;

    BatchRequests(final LaneRequests requests, final MemorySegment mem)
    {
        this.nodeCas = requests.nodeCas();
        if (nodeCas != null)
        {
            nodeCas.prepareSend(wrs.at(SEND));
        }
        this.io = requests.io();
        this.remote = requests.remote();
        this.mem = mem;
    }

    /** Starts a new chain. */
    void clear()
    {
        count = 0;
        if (nodeCas != null)
        {
            nodeCas.clear();
        }
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
        if (nodeCas != null)
        {
            nodeCas.add(slotAddress, expected, swap, LaneBuffers.batchCas(i));
            return;
        }
        next().compareAndSwap(io.localAddress(LaneBuffers.batchCas(i)), io.lkey(), slotAddress, remote.indexRkey(),
            expected, swap);
    }

    /** The word key {@code i}'s slot held when its CAS ran (the CAS won when it is the expected word). */
    long casRead(final int i)
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.batchCas(i));
    }

    /** Requests appended since {@link #clear()} (CASes sent to the node included). */
    int size()
    {
        return count + (nodeCas == null ? 0 : nodeCas.size());
    }

    /**
     * Rings the chain (one doorbell, one round trip); nothing to ring is {@link Status#OK}. On the node-assisted
     * write path its CASes follow the chain's other requests as one SLOT_CAS in the same post (a CAS still runs
     * after its block's WRITE); its READs then run before the CASes instead of among them.
     */
    int ring()
    {
        if (nodeCas != null && nodeCas.size() > 0)
        {
            for (int i = 0; i < count; i++)
            {
                wrs.at(i).sendFlags(0).wrId(0).next(i == count - 1 ? wrs.at(SEND) : wrs.at(i + 1));
            }
            return count == 0 ? nodeCas.call(null, null) : nodeCas.call(wrs.at(0), wrs.at(SEND));
        }
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
