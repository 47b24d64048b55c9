package io.rdmakv.client.internal;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.protocol.MessageHeaderDescriptor;

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
 *      + CONTROL_SEND  one outgoing control message
 *      + CONTROL_RECV  RECV_BUFFERS incoming control messages
 * </pre>
 */
final class LaneBuffers
{
    static final int GROUPS = 0;
    static final int SLOT = GROUPS + 2 * BucketDescriptor.GROUP_LENGTH;
    static final int ATOMIC = SLOT + 8;
    static final int LOCK = ATOMIC + 8;
    static final int UNLOCK = LOCK + 8;
    static final int KEY = 512;
    static final int READ_BLOCK = 4096;
    static final int BLOCK_SPACE = align(KvBlockDescriptor.MAX_BLOCK_LENGTH, 4096);
    static final int WRITE_BLOCK = READ_BLOCK + BLOCK_SPACE;
    static final int CONTROL_SEND = WRITE_BLOCK + BLOCK_SPACE;
    static final int CONTROL_LENGTH = MessageHeaderDescriptor.MAX_MESSAGE_LENGTH;
    static final int RECV_BUFFERS = 4;
    static final int CONTROL_RECV = CONTROL_SEND + CONTROL_LENGTH;
    static final int LENGTH = align(CONTROL_RECV + RECV_BUFFERS * CONTROL_LENGTH, 4096);

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

    static int controlRecv(final int i)
    {
        return CONTROL_RECV + i * CONTROL_LENGTH;
    }

    private static int align(final int value, final int alignment)
    {
        return (value + alignment - 1) / alignment * alignment;
    }
}
