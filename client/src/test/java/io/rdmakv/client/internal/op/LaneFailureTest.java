package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import io.rdmakv.verbs.QpState;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.ALLOC;
import static io.rdmakv.client.internal.op.Doorbells.READ_SLOT_BLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A lane broken by the NIC stays broken and says why; space running out is a status, not an exception. */
class LaneFailureTest extends TwoLanes
{
    @Test
    void aRemoteAccessErrorBreaksTheLaneAndLaterOperationsFailFastWithTheSameFailure()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long version = lane.version();
        node.deregisterDataRegion();

        final int mark = lane.mark();
        assertEquals(Status.REMOTE_ERROR, lane.get("k"));
        assertEquals(List.of(READ_SLOT_BLOCK), lane.doorbellsSince(mark));
        assertEquals(QpState.ERR, lane.nic().state());

        final int broken = lane.mark();
        assertEquals(Status.REMOTE_ERROR, lane.get("k"));
        assertEquals(Status.REMOTE_ERROR, lane.put("k", "v2"));
        assertEquals(Status.REMOTE_ERROR, lane.delete("k"));
        assertEquals(Status.REMOTE_ERROR, lane.compareAndSet("k", "v3", version));
        assertEquals(Status.REMOTE_ERROR, lane.get("never-seen"));
        assertEquals(List.of(), lane.doorbellsSince(broken), "nothing is posted on a broken lane");
        assertEquals(List.of(version), node.slotsHolding("k"));
        assertEquals(6, lane.count(ClientCounter.ERRORS), "each failed operation counts as an error");
    }

    @Test
    void noSpaceLeftAfterAGrantIsOutOfSpace()
    {
        final String large = "x".repeat(NodeRegion.GRANT / 2);
        assertEquals(Status.OK, lane.put("k1", large));
        node.exhaustSpace();

        final int mark = lane.mark();
        assertEquals(Status.OUT_OF_SPACE, lane.put("k2", large));

        assertEquals(List.of(ALLOC), lane.doorbellsSince(mark));
        assertEquals(List.of(), node.slotsHolding("k2"));
        assertEquals(QpState.RTS, lane.nic().state());
    }

    @Test
    void aGrantAtAnOffsetNoSlotCanNameIsARemoteErrorNotAnException()
    {
        node.misalignNextGrant();

        assertEquals(Status.REMOTE_ERROR, lane.put("k", "v"));
        assertEquals(List.of(), node.slotsHolding("k"));
    }

    @Test
    void noSpaceForTheFirstPutIsOutOfSpace()
    {
        node.exhaustSpace();

        assertEquals(Status.OUT_OF_SPACE, lane.put("k", "v"));
        assertEquals(List.of(), node.slotsHolding("k"));
    }

    @Test
    void aPutOnALaneBrokenBeforeItsFirstAllocFailsWithTheLanesFailure()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        node.deregisterDataRegion();
        assertEquals(Status.REMOTE_ERROR, other.get("k"));

        assertEquals(Status.REMOTE_ERROR, other.put("k", "v2"));
    }
}
