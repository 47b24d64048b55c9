package io.rdmakv.client.internal.op;

import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The fixture behaves like an RC responder: remote accesses outside an rkey's region fail and flush the rest. */
class ScriptedNicTest
{
    private final Arena arena = Arena.ofConfined();
    private final NodeRegion node = new NodeRegion();
    private final MemorySegment mem = arena.allocate(4096, 64);
    private final LocalMemoryRegion local = new LocalMemoryRegion(mem, 5);
    private final ScriptedNic nic = new ScriptedNic(node, local);
    private final SendWorkRequests wrs = SendWorkRequests.allocate(2, 1);
    private final WorkCompletions completions = WorkCompletions.allocate(4);

    @AfterEach
    void close()
    {
        completions.close();
        wrs.close();
        arena.close();
        node.close();
    }

    @Test
    void aReadPastTheEndOfTheIndexRegionIsARemoteAccessErrorAndFlushesTheRestOfTheChain()
    {
        final long indexEnd = NodeRegion.INDEX_ADDRESS + node.geometry().headerAndIndexLength();
        chain(indexEnd - 64, NodeRegion.INDEX_RKEY, 128);

        assertEquals(0, nic.postSend(wrs.at(0)));

        assertEquals(2, nic.completionQueue().poll(completions));
        assertEquals(WcStatus.REM_ACCESS_ERR, completions.at(0).statusEnum());
        assertEquals(WcStatus.WR_FLUSH_ERR, completions.at(1).statusEnum());
        assertEquals(QpState.ERR, nic.state());
    }

    @Test
    void anIndexAddressWithTheDataRkeyIsARemoteAccessError()
    {
        chain(NodeRegion.INDEX_ADDRESS + node.geometry().indexOffset(), NodeRegion.DATA_RKEY, 128);

        nic.postSend(wrs.at(0));

        assertEquals(2, nic.completionQueue().poll(completions));
        assertEquals(WcStatus.REM_ACCESS_ERR, completions.at(0).statusEnum());
    }

    @Test
    void readsInsideTheRegionSucceedAndOnlyTheSignaledOneCompletes()
    {
        chain(NodeRegion.INDEX_ADDRESS + node.geometry().indexOffset(), NodeRegion.INDEX_RKEY, 128);

        nic.postSend(wrs.at(0));

        assertEquals(1, nic.completionQueue().poll(completions));
        assertEquals(2L, completions.at(0).wrId());
        assertEquals(WcStatus.SUCCESS, completions.at(0).statusEnum());
        assertEquals(QpState.RTS, nic.state());
        assertEquals("READ group + READ group", nic.doorbells().getFirst());
    }

    /** A READ at {@code address} followed by a signaled READ at the start of the index. */
    private void chain(final long address, final int rkey, final int length)
    {
        wrs.at(0).rdmaRead(mem.address(), length, local.lkey(), address, rkey).wrId(1).sendFlags(0).next(wrs.at(1));
        wrs.at(1).rdmaRead(mem.address() + 1024, 128, local.lkey(),
            NodeRegion.INDEX_ADDRESS + node.geometry().indexOffset(), NodeRegion.INDEX_RKEY)
            .wrId(2).sendFlags(SendFlags.SIGNALED).next(null);
    }
}
