package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.SendWorkRequest;

import java.util.List;

/**
 * The shapes of doorbells as a {@link ScriptedNic} records them: each request of a chain named by what it
 * touches, joined by {@code " + "}; one constant per chain of {@link LaneRequests}.
 */
final class Doorbells
{
    static final String READ_GROUPS = "READ group + READ group";
    static final String WRITE_READ_GROUPS = "WRITE block + READ group + READ group";
    static final String READ_GROUPS_BLOCK = "READ group + READ group + READ block";
    static final String WRITE_READ_GROUPS_BLOCK = "WRITE block + READ group + READ group + READ block";
    static final String READ_SLOT_BLOCK = "READ slot + READ block";
    static final String WRITE_READ_SLOT_BLOCK = "WRITE block + READ slot + READ block";
    static final String READ_BLOCK = "READ block";
    static final String CAS_SLOT = "CAS slot";
    static final String WRITE_CAS_SLOT = "WRITE block + CAS slot";
    static final String LOCK_READ_GROUPS = "LOCK + READ group + READ group";
    static final String CAS_SLOT_UNLOCK = "CAS slot + UNLOCK";
    static final String UNLOCK = "UNLOCK";
    static final String ALLOC = "SEND ALLOC";
    static final String FREE = "SEND FREE";

    private Doorbells()
    {
    }

    /** The shape of a posted chain: what each request touches on {@code node}. */
    static String shape(final List<SendWorkRequest> chain, final NodeRegion node, final MemoryRegion local)
    {
        final StringBuilder shape = new StringBuilder();
        for (final SendWorkRequest wr : chain)
        {
            shape.append(shape.isEmpty() ? "" : " + ").append(name(wr, node, local));
        }
        return shape.toString();
    }

    private static String name(final SendWorkRequest wr, final NodeRegion node, final MemoryRegion local)
    {
        return switch (wr.opcode())
        {
            case Opcode.RDMA_READ -> wr.rdmaRkey() == NodeRegion.DATA_RKEY ? "READ block" :
                wr.sgeLength(0) == BucketDescriptor.GROUP_LENGTH ? "READ group" :
                wr.sgeLength(0) == BucketDescriptor.SLOT_LENGTH ? "READ slot" : "READ index";
            case Opcode.RDMA_WRITE -> wr.rdmaRkey() != NodeRegion.INDEX_RKEY ? "WRITE block" : "WRITE index";
            case Opcode.ATOMIC_CMP_AND_SWP -> !node.isLockAddress(wr.atomicRemoteAddr()) ? "CAS slot" :
                wr.atomicSwap() == 0 ? "UNLOCK" : "LOCK";
            case Opcode.SEND ->
            {
                final long offset = wr.sgeAddr(0) - local.address();
                yield "SEND " + (offset < 0 || offset > local.length() - MessageHeaderDescriptor.HEADER_LENGTH ?
                    "?" : MessageType.of(MessageHeaderDescriptor.type(local.segment(), offset)));
            }
            default -> Opcode.name(wr.opcode());
        };
    }
}
