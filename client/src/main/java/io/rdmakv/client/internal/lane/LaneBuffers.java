package io.rdmakv.client.internal.lane;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.peer.ControlArea;

/**
 * Layout of a lane's registered local memory: where RDMA READs land, where blocks are assembled
 * before their WRITE, where atomics return, and the control-message buffers.
 *
 * <pre>
 *      0 GROUPS        two bucket groups (both candidates of a key), one READ each
 *    256 SLOT          one slot word (the cached-slot fast path)
 *    264 ATOMIC        original value of the slot CAS
 *    272 LOCK          original value of the insert-lock CAS
 *    280 UNLOCK        original value of the unlock CAS
 *    512 KEY           the key of the operation in flight (up to MAX_KEY_LENGTH)
 *   4096 READ_BLOCK    a block read from the server
 *      + WRITE_BLOCK   the block being written
 *      + CONTROL       the session's control area (ControlArea: one outgoing message, RECV_BUFFERS
 *                      incoming ones)
 *      + BATCH_KEYS    BATCH keys of a batched GET (MAX_KEY_LENGTH each)
 *      + BATCH_GROUPS  their bucket groups (two groups each)
 *      + BATCH_SLOTS   their cached slots' words
 *      + BATCH_BLOCKS  their blocks (BATCH_BLOCK_LENGTH each; a longer block is read on its own)
 *      + BATCH_CAS     original values of a batched PUT's slot CASes
 *      + BATCH_WRITES  a batched PUT's new blocks (BATCH_BLOCK_LENGTH each; a longer one is a single PUT)
 * </pre>
 */
public final class LaneBuffers
{
    static final int GROUPS = 0;
    static final int SLOT = GROUPS + 2 * BucketDescriptor.GROUP_LENGTH;
    static final int ATOMIC = SLOT + 8;
    static final int LOCK = ATOMIC + 8;
    static final int UNLOCK = LOCK + 8;
    public static final int KEY = 512;
    public static final int READ_BLOCK = 4096;
    static final int BLOCK_SPACE = align(KvBlockDescriptor.MAX_BLOCK_LENGTH, 4096);
    public static final int WRITE_BLOCK = READ_BLOCK + BLOCK_SPACE;
    /** The session's {@link ControlArea}: SEND, then the RECV buffers. */
    public static final int CONTROL = WRITE_BLOCK + BLOCK_SPACE;
    static final int CONTROL_SEND = CONTROL + ControlArea.SEND;
    /** Keys per batched doorbell: up to three requests each (a PUT's WRITE, READ slot, READ block), 48 of the send queue's 64. */
    public static final int BATCH = 16;
    /** The longest block a batch reads for a key (4 KiB: a 1 KB record with room to spare). */
    public static final int BATCH_BLOCK_LENGTH = 4096;
    static final int BATCH_KEYS = align(CONTROL + ControlArea.LENGTH, 4096);
    static final int BATCH_GROUPS = BATCH_KEYS + BATCH * KvBlockDescriptor.MAX_KEY_LENGTH;
    static final int BATCH_SLOTS = BATCH_GROUPS + BATCH * 2 * BucketDescriptor.GROUP_LENGTH;
    static final int BATCH_BLOCKS = align(BATCH_SLOTS + BATCH * 8, 4096);
    static final int BATCH_CAS = BATCH_BLOCKS + BATCH * BATCH_BLOCK_LENGTH;
    static final int BATCH_WRITES = align(BATCH_CAS + BATCH * 8, 4096);
    public static final int LENGTH = BATCH_WRITES + BATCH * BATCH_BLOCK_LENGTH;

    static
    {
        if (KEY + KvBlockDescriptor.MAX_KEY_LENGTH > READ_BLOCK)
        {
            throw new AssertionError("key scratch overlaps the read block");
        }
    }

    private LaneBuffers()
    {
    }

    public static int batchKey(final int i)
    {
        return BATCH_KEYS + i * KvBlockDescriptor.MAX_KEY_LENGTH;
    }

    public static int batchGroups(final int i)
    {
        return BATCH_GROUPS + i * 2 * BucketDescriptor.GROUP_LENGTH;
    }

    public static int batchSlot(final int i)
    {
        return BATCH_SLOTS + i * 8;
    }

    public static int batchBlock(final int i)
    {
        return BATCH_BLOCKS + i * BATCH_BLOCK_LENGTH;
    }

    public static int batchCas(final int i)
    {
        return BATCH_CAS + i * 8;
    }

    public static int batchWrite(final int i)
    {
        return BATCH_WRITES + i * BATCH_BLOCK_LENGTH;
    }

    private static int align(final int value, final int alignment)
    {
        return (value + alignment - 1) / alignment * alignment;
    }
}
