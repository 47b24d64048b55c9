package io.rdmakv.client.internal.lane;

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
 * Every doorbell of the data path, prebuilt once per lane (eRPC style): each chain's opcodes, local
 * buffers, keys and links are set here at construction; an operation patches only what varies (remote
 * addresses, block lengths, compare and swap words) and rings. Each method is one round trip.
 *
 * <pre>
 *   chain                     requests (one doorbell)                 used by
 *   readGroups                READ group 1, READ group 2              GET, DELETE, retries
 *   writeAndReadGroups        WRITE block, READ group 1, READ group 2 first try of a PUT
 *   readSlotAndBlock          READ slot, READ its block               cached GET, cached DELETE check
 *   writeAndReadSlotAndBlock  WRITE block, READ slot, READ its block  PUT of a cached (not fresh) key
 *   readBlock                 READ block                              search of a candidate slot
 *   casSlot                   CAS slot                                commit of PUT, DELETE, compare-and-set
 *   writeAndCasSlot           WRITE block, CAS slot                   PUT of a fresh cached key
 *   lockAndReadGroups         CAS insert lock, READ group 1, group 2  insert
 *   casSlotAndUnlock          CAS empty slot, CAS insert lock free    insert commit
 *   unlock                    CAS insert lock free (unsignaled)       insert that found the key after all
 *   writeBlock                WRITE block                             replicated commit, block not out yet
 *   replicaWrite              WRITE another lane's block              a backup's or copying node's copy
 *   replicaWriteAndCas        WRITE another lane's block, CAS slot    the first backup of a chain
 *   replicaCas                CAS slot                                the other backups of a chain
 * </pre>
 *
 * <p>Doorbells only: a replicated slot commit goes along the key's chain first
 * ({@link io.rdmakv.client.internal.chain.ChainCommit}), which rings these for the primary.
 *
 * Results land in the lane's buffers ({@link LaneBuffers}); read them with {@link #casResult()},
 * {@link #lockResult()} and {@link #slotRead()}.
 *
 * <p>The one place index CASes are posted. On a node whose clients cannot CAS its index (the node-assisted write
 * path, {@link NodeCas}) each doorbell's CASes go to the node as one SLOT_CAS instead, behind its other requests in
 * the same post, and their original values land in the same buffers: the protocols run unchanged. There a
 * doorbell whose READs must follow its CAS (the insert lock) is two round trips, and {@link #unlock} waits for its
 * answer instead of riding ahead of the next doorbell.
 */
public final class LaneRequests implements AutoCloseable
{
    private static final int READ_GROUPS = 0;
    private static final int WRITE_READ_GROUPS = 2;
    private static final int READ_SLOT_BLOCK = 5;
    private static final int WRITE_READ_SLOT_BLOCK = 7;
    private static final int READ_BLOCK = 10;
    private static final int CAS_SLOT = 11;
    private static final int WRITE_CAS_SLOT = 12;
    private static final int LOCK_READ_GROUPS = 14;
    private static final int CAS_SLOT_UNLOCK = 17;
    private static final int UNLOCK = 19;
    private static final int WRITE_BLOCK = 20;
    private static final int REPLICA_WRITE = 21;
    private static final int REPLICA_WRITE_CAS = 22;
    private static final int REPLICA_CAS = 24;
    /** The node-assisted write path's SLOT_CAS SENDs that the WRITE ahead of a CAS is linked on to. */
    private static final int WRITE_CAS_SEND = 25;
    private static final int REPLICA_WRITE_CAS_SEND = 26;
    private static final int READ_GROUPS_BLOCK = 27;
    private static final int WRITE_READ_GROUPS_BLOCK = 30;
    private static final int COUNT = 34;

    private final SessionIo io;
    private final RemoteIndex remote;
    /** The rkey another lane's block is WRITTEN here with ({@link ReplicaWindow}): the data area's, or a window's. */
    private int replicaWriteRkey;
    private final MemorySegment mem;
    private final SendWorkRequests wrs = SendWorkRequests.allocate(COUNT, 1);
    /** The node-assisted write path's CASes, or null: this lane CASes the index itself. */
    private final NodeCas nodeCas;

    public LaneRequests(final SessionIo io, final RemoteIndex remote, final MemorySegment mem)
    {
        this(io, remote, mem, null);
    }

    /** @param nodeCas where index CASes go on the node-assisted write path; null: RDMA atomics (one-sided) */
    public LaneRequests(final SessionIo io, final RemoteIndex remote, final MemorySegment mem, final NodeCas nodeCas)
    {
        this.nodeCas = nodeCas;
        this.io = io;
        this.remote = remote;
        this.replicaWriteRkey = remote.dataRkey();
        this.mem = mem;
        groupReads(READ_GROUPS);
        blockWrite(WRITE_READ_GROUPS);
        groupReads(WRITE_READ_GROUPS + 1);
        slotAndBlockReads(READ_SLOT_BLOCK);
        blockWrite(WRITE_READ_SLOT_BLOCK);
        slotAndBlockReads(WRITE_READ_SLOT_BLOCK + 1);
        blockRead(READ_BLOCK);
        groupReads(READ_GROUPS_BLOCK);
        blockRead(READ_GROUPS_BLOCK + 2);
        blockWrite(WRITE_READ_GROUPS_BLOCK);
        groupReads(WRITE_READ_GROUPS_BLOCK + 1);
        blockRead(WRITE_READ_GROUPS_BLOCK + 3);
        atomic(CAS_SLOT, LaneBuffers.ATOMIC);
        blockWrite(WRITE_CAS_SLOT);
        atomic(WRITE_CAS_SLOT + 1, LaneBuffers.ATOMIC);
        atomic(LOCK_READ_GROUPS, LaneBuffers.LOCK);
        groupReads(LOCK_READ_GROUPS + 1);
        atomic(CAS_SLOT_UNLOCK, LaneBuffers.ATOMIC);
        atomic(CAS_SLOT_UNLOCK + 1, LaneBuffers.UNLOCK);
        atomic(UNLOCK, LaneBuffers.UNLOCK);
        blockWrite(WRITE_BLOCK);
        blockWrite(REPLICA_WRITE);
        blockWrite(REPLICA_WRITE_CAS);
        atomic(REPLICA_WRITE_CAS + 1, LaneBuffers.ATOMIC);
        atomic(REPLICA_CAS, LaneBuffers.ATOMIC);
        link(READ_GROUPS, 2);
        link(WRITE_READ_GROUPS, 3);
        link(READ_SLOT_BLOCK, 2);
        link(WRITE_READ_SLOT_BLOCK, 3);
        link(READ_BLOCK, 1);
        link(READ_GROUPS_BLOCK, 3);
        link(WRITE_READ_GROUPS_BLOCK, 4);
        link(CAS_SLOT, 1);
        link(WRITE_CAS_SLOT, 2);
        link(LOCK_READ_GROUPS, 3);
        link(CAS_SLOT_UNLOCK, 2);
        link(WRITE_BLOCK, 1);
        link(REPLICA_WRITE, 1);
        link(REPLICA_WRITE_CAS, 2);
        link(REPLICA_CAS, 1);
        wrs.at(UNLOCK).sendFlags(0).wrId(0).next(null);
        if (nodeCas != null)
        {
            // the WRITE ahead of a CAS goes unsignaled, linked on to the SLOT_CAS's SEND instead of the CAS
            nodeCas.prepareSend(wrs.at(WRITE_CAS_SEND));
            nodeCas.prepareSend(wrs.at(REPLICA_WRITE_CAS_SEND));
            wrs.at(WRITE_CAS_SLOT).next(wrs.at(WRITE_CAS_SEND));
            wrs.at(REPLICA_WRITE_CAS).next(wrs.at(REPLICA_WRITE_CAS_SEND));
        }
    }

    /** Whether this lane's index CASes go to the node (SLOT_CAS) instead of RDMA atomics. */
    public boolean nodeAssisted()
    {
        return nodeCas != null;
    }

    /** The node-assisted write path's CASes, or null (one-sided). */
    public NodeCas nodeCas()
    {
        return nodeCas;
    }

    // ---- the doorbells ----------------------------------------------------------------------

    public int readGroups(final KeyLocation key)
    {
        patchGroups(READ_GROUPS, key);
        return ring(READ_GROUPS, 2);
    }

    public int writeAndReadGroups(final long blockWord, final int writeRkey, final KeyLocation key)
    {
        patchBlockWrite(WRITE_READ_GROUPS, blockWord, writeRkey);
        patchGroups(WRITE_READ_GROUPS + 1, key);
        return ring(WRITE_READ_GROUPS, 3);
    }

    /**
     * The key's candidate groups and, in the same doorbell, the block {@code word} names (into the read-block buffer):
     * a compare-and-set checks that the block its expected word names is still the key's.
     */
    public int readGroupsAndBlock(final KeyLocation key, final long word)
    {
        patchGroups(READ_GROUPS_BLOCK, key);
        patchBlock(READ_GROUPS_BLOCK + 2, word);
        return ring(READ_GROUPS_BLOCK, 3);
    }

    public int writeAndReadGroupsAndBlock(final long blockWord, final int writeRkey, final KeyLocation key,
        final long word)
    {
        patchBlockWrite(WRITE_READ_GROUPS_BLOCK, blockWord, writeRkey);
        patchGroups(WRITE_READ_GROUPS_BLOCK + 1, key);
        patchBlock(WRITE_READ_GROUPS_BLOCK + 3, word);
        return ring(WRITE_READ_GROUPS_BLOCK, 4);
    }

    public int readSlotAndBlock(final long slotAddress, final long word)
    {
        patchSlotAndBlock(READ_SLOT_BLOCK, slotAddress, word);
        return ring(READ_SLOT_BLOCK, 2);
    }

    public int writeAndReadSlotAndBlock(final long blockWord, final int writeRkey, final long slotAddress, final long word)
    {
        patchBlockWrite(WRITE_READ_SLOT_BLOCK, blockWord, writeRkey);
        patchSlotAndBlock(WRITE_READ_SLOT_BLOCK + 1, slotAddress, word);
        return ring(WRITE_READ_SLOT_BLOCK, 3);
    }

    public int readBlock(final long word)
    {
        patchBlock(READ_BLOCK, word);
        return ring(READ_BLOCK, 1);
    }

    public int casSlot(final long slotAddress, final long expected, final long swap)
    {
        if (nodeCas != null)
        {
            nodeCas.add(slotAddress, expected, swap, LaneBuffers.ATOMIC);
            return nodeCas.call(null, null);
        }
        wrs.at(CAS_SLOT).atomic(slotAddress, remote.indexRkey(), expected, swap);
        return ring(CAS_SLOT, 1);
    }

    public int writeAndCasSlot(final long blockWord, final int writeRkey, final long slotAddress, final long expected,
        final long swap)
    {
        patchBlockWrite(WRITE_CAS_SLOT, blockWord, writeRkey);
        if (nodeCas != null)
        {
            nodeCas.add(slotAddress, expected, swap, LaneBuffers.ATOMIC);
            return nodeCas.call(wrs.at(WRITE_CAS_SLOT), wrs.at(WRITE_CAS_SEND));
        }
        wrs.at(WRITE_CAS_SLOT + 1).atomic(slotAddress, remote.indexRkey(), expected, swap);
        return ring(WRITE_CAS_SLOT, 2);
    }

    /** WRITEs the block {@code blockWord} names (a replicated commit puts the primary's copy out first). */
    public int writeBlock(final long blockWord, final int writeRkey)
    {
        patchBlockWrite(WRITE_BLOCK, blockWord, writeRkey);
        return ring(WRITE_BLOCK, 1);
    }

    /**
     * Takes the insert lock of the key's first group and reads both groups behind it. No fence: an RC
     * responder executes the CAS before the READs behind it, so they see the lock taken (a fence also
     * stalled Soft-RoCE's requester now and then).
     */
    public int lockAndReadGroups(final KeyLocation key, final long lockWord)
    {
        if (nodeCas != null)
        {
            // the READs must see the lock taken: they follow the node's answer
            nodeCas.add(key.lockAddress(), 0L, lockWord, LaneBuffers.LOCK);
            final int rc = nodeCas.call(null, null);
            if (rc != Status.OK)
            {
                return rc;
            }
            patchGroups(LOCK_READ_GROUPS + 1, key);
            return ring(LOCK_READ_GROUPS + 1, 2);
        }
        wrs.at(LOCK_READ_GROUPS).atomic(key.lockAddress(), remote.indexRkey(), 0L, lockWord);
        patchGroups(LOCK_READ_GROUPS + 1, key);
        return ring(LOCK_READ_GROUPS, 3);
    }

    public int casSlotAndUnlock(final long slotAddress, final long swap, final KeyLocation key, final long lockWord)
    {
        if (nodeCas != null)
        {
            nodeCas.add(slotAddress, 0L, swap, LaneBuffers.ATOMIC);
            nodeCas.add(key.lockAddress(), lockWord, 0L, LaneBuffers.UNLOCK);
            return nodeCas.call(null, null);
        }
        wrs.at(CAS_SLOT_UNLOCK).atomic(slotAddress, remote.indexRkey(), 0L, swap);
        wrs.at(CAS_SLOT_UNLOCK + 1).atomic(key.lockAddress(), remote.indexRkey(), lockWord, 0L);
        return ring(CAS_SLOT_UNLOCK, 2);
    }

    /** Releases the insert lock without waiting (it completes before the next doorbell's requests). */
    public int unlock(final KeyLocation key, final long lockWord)
    {
        if (nodeCas != null)
        {
            nodeCas.add(key.lockAddress(), lockWord, 0L, LaneBuffers.UNLOCK);
            return nodeCas.call(null, null);
        }
        wrs.at(UNLOCK).atomic(key.lockAddress(), remote.indexRkey(), lockWord, 0L);
        return io.postUnsignaled(wrs.at(UNLOCK));
    }

    /** The lane's posting and waiting (for {@code BatchRequests}, whose chains vary in length). */
    public SessionIo io()
    {
        return io;
    }

    public RemoteIndex remote()
    {
        return remote;
    }

    // ---- results ----------------------------------------------------------------------------

    /** The failure that broke the lane (a negative {@link Status}), or 0 while it works. */
    public int failure()
    {
        return io.failure();
    }

    /** The slot's value before the last slot CAS. */
    public long casResult()
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.ATOMIC);
    }

    /**
     * Records {@code word} as the slot's value before the last slot CAS: a replicated commit that lost to another
     * writer's word says so here ({@link io.rdmakv.client.internal.chain.ChainCommit}), so that the protocol
     * re-reads or conflicts as after a CAS the primary refused.
     */
    public void casResultIs(final long word)
    {
        mem.set(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.ATOMIC, word);
    }

    /** Where the block being written is, in this lane's registered memory (backups WRITE it from there). */
    public long writeBlockAddress()
    {
        return io.localAddress(LaneBuffers.WRITE_BLOCK);
    }

    /** The insert lock's value before the last lock CAS (0: we took it). */
    public long lockResult()
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.LOCK);
    }

    /** The slot word the last slot READ returned. */
    public long slotRead()
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.SLOT);
    }

    // ---- building and patching --------------------------------------------------------------

    private int ring(final int first, final int count)
    {
        return io.ring(wrs.at(first), wrs.at(first + count - 1));
    }

    private void link(final int first, final int count)
    {
        for (int i = first; i < first + count; i++)
        {
            final boolean last = i == first + count - 1;
            wrs.at(i).sendFlags(last ? SendFlags.SIGNALED : 0).wrId(0).next(last ? null : wrs.at(i + 1));
        }
    }

    private void groupReads(final int first)
    {
        wrs.at(first).rdmaRead(io.localAddress(LaneBuffers.GROUPS), BucketDescriptor.GROUP_LENGTH, io.lkey(), 0L,
            remote.indexRkey());
        wrs.at(first + 1).rdmaRead(io.localAddress(LaneBuffers.GROUPS + BucketDescriptor.GROUP_LENGTH),
            BucketDescriptor.GROUP_LENGTH, io.lkey(), 0L, remote.indexRkey());
    }

    private void slotAndBlockReads(final int first)
    {
        wrs.at(first).rdmaRead(io.localAddress(LaneBuffers.SLOT), BucketDescriptor.SLOT_LENGTH, io.lkey(), 0L,
            remote.indexRkey());
        blockRead(first + 1);
    }

    private void blockRead(final int index)
    {
        wrs.at(index).rdmaRead(io.localAddress(LaneBuffers.READ_BLOCK), 0, io.lkey(), 0L, remote.dataRkey());
    }

    private void blockWrite(final int index)
    {
        wrs.at(index).rdmaWrite(io.localAddress(LaneBuffers.WRITE_BLOCK), 0, io.lkey(), 0L, remote.dataRkey());
    }

    private void atomic(final int index, final int resultOffset)
    {
        wrs.at(index).compareAndSwap(io.localAddress(resultOffset), io.lkey(), 0L, remote.indexRkey(), 0L, 0L);
    }

    private void patchGroups(final int first, final KeyLocation key)
    {
        wrs.at(first).rdma(key.group1Address(), remote.indexRkey());
        wrs.at(first + 1).rdma(key.group2Address(), remote.indexRkey());
    }

    private void patchSlotAndBlock(final int first, final long slotAddress, final long word)
    {
        wrs.at(first).rdma(slotAddress, remote.indexRkey());
        patchBlock(first + 1, word);
    }

    // ---- a backup's side of a chain (called on the backup's lane) ------------------------------

    /** The last ring was for the primary lane's operation, which counts it (totals stay right). */
    public void chargedToPrimary()
    {
        io.roundTripChargedElsewhere();
    }

    /** WRITEs the block {@code word} names from another lane's buffer (same protection domain) to this node. */
    /** The rkey {@link #replicaWrite} and {@link #replicaWriteAndCas} WRITE with (set by {@link ReplicaWindow}). */
    void replicaWriteRkey(final int rkey)
    {
        replicaWriteRkey = rkey;
    }

    public int replicaWrite(final long localAddress, final int lkey, final long word)
    {
        patchForeignBlock(REPLICA_WRITE, localAddress, lkey, word);
        return ring(REPLICA_WRITE, 1);
    }

    /** WRITEs the block, then CASes the slot at {@code slotOffset} from {@code expected} to {@code word}. */
    public int replicaWriteAndCas(final long localAddress, final int lkey, final long word, final long slotOffset,
        final long expected)
    {
        patchForeignBlock(REPLICA_WRITE_CAS, localAddress, lkey, word);
        if (nodeCas != null)
        {
            nodeCas.add(remote.indexAddress() + slotOffset, expected, word, LaneBuffers.ATOMIC);
            return nodeCas.call(wrs.at(REPLICA_WRITE_CAS), wrs.at(REPLICA_WRITE_CAS_SEND));
        }
        wrs.at(REPLICA_WRITE_CAS + 1).atomic(remote.indexAddress() + slotOffset, remote.indexRkey(), expected, word);
        return ring(REPLICA_WRITE_CAS, 2);
    }

    public int replicaCas(final long slotOffset, final long expected, final long swap)
    {
        if (nodeCas != null)
        {
            nodeCas.add(remote.indexAddress() + slotOffset, expected, swap, LaneBuffers.ATOMIC);
            return nodeCas.call(null, null);
        }
        wrs.at(REPLICA_CAS).atomic(remote.indexAddress() + slotOffset, remote.indexRkey(), expected, swap);
        return ring(REPLICA_CAS, 1);
    }

    /** Points a WRITE at the block {@code word} names, from another lane's buffer. */
    private void patchForeignBlock(final int index, final long localAddress, final int lkey, final long word)
    {
        wrs.at(index).sge(0, localAddress, SlotWord.blockLength(word), lkey).rdma(remote.blockAddress(word),
            replicaWriteRkey);
    }

    /** Points a block READ at the block a slot word names, with the block's length. */
    private void patchBlock(final int index, final long word)
    {
        patchBlockWrite(index, word, remote.dataRkey());
    }

    /**
     * Points a block READ or WRITE at the block a slot word names, with the block's length and {@code rkey}
     * (a WRITE's comes from the {@link SpaceLease}: the data area itself is not remotely writable).
     */
    private void patchBlockWrite(final int index, final long word, final int rkey)
    {
        final SendWorkRequest wr = wrs.at(index);
        wr.sge(0, wr.sgeAddr(0), SlotWord.blockLength(word), io.lkey()).rdma(remote.blockAddress(word), rkey);
    }

    @Override
    public void close()
    {
        wrs.close();
    }
}
