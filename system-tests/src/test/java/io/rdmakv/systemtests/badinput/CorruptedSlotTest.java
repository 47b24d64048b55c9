package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A slot word that points outside the data area is never followed (a READ there would break the lane);
 * and a PUT over a corrupted block succeeds (the node repairs the damaged slot) and never leaves a key that
 * reads wrong bytes.
 */
class CorruptedSlotTest extends CorruptionFixture
{
    @Test
    void slotPointingOutsideTheDataAreaIsNeverFollowed()
    {
        final RegionView.Slot slot = view.find(key);
        final long outside = SlotWord.pack(SlotWord.fingerprint(slot.word()), SlotWord.lengthUnits(slot.word()),
            server.geometry().dataLength() / SlotWord.UNIT);
        assertFalse(SlotWord.isWithin(outside, server.geometry().dataLength()));
        view.swapSlot(slot, outside);
        try (KvClient fresh = LocalCluster.client(server))
        {
            report("slot word", getFails(fresh));
            othersReadFine(fresh);
        }
    }

    /** PUTs over the corrupted key with {@code client}: it succeeds, and the new value reads back. */
    private String overwrite(final KvClient client, final byte[] repaired)
    {
        final long start = System.nanoTime();
        client.put(key, repaired);
        final String outcome = "put succeeded after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) +
            " ms";
        assertArrayEquals(repaired, client.get(key), "after " + outcome + ", a GET returns the new value");
        assertArrayEquals(repaired, writer.get(key), "and so does the first writer's");
        othersReadFine(client);
        return outcome;
    }

    @Test
    void overwritingACorruptedKeyNeverLeavesWrongBytes()
    {
        view.flip(view.valueOffset(view.find(key)) + 5);
        try (KvClient fresh = LocalCluster.client(server))
        {
            System.out.println("corrupted value, PUT by a client without the slot cached: " +
                overwrite(fresh, LocalCluster.bytes("a repair attempt")));
        }
    }
}
