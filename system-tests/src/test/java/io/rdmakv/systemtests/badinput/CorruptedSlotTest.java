package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvException;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A slot word that points outside the data area is never followed (a READ there would break the lane);
 * and a PUT over a corrupted block, whatever its outcome, never leaves a key that reads wrong bytes.
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

    /** PUTs over the corrupted key with {@code client}; whatever happens, a GET never returns wrong bytes. */
    private String overwrite(final KvClient client, final byte[] repaired)
    {
        final long start = System.nanoTime();
        String outcome;
        try
        {
            client.put(key, repaired);
            outcome = "put succeeded";
        }
        catch (final KvException e)
        {
            assertFalse(e instanceof KvConnectionException, "the lane stays up: " + e);
            outcome = "put failed: " + e.getMessage();
        }
        outcome += " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms";
        try
        {
            assertArrayEquals(repaired, client.get(key), "after " + outcome + ", a GET returns the new value or fails");
        }
        catch (final KvException e)
        {
            assertFalse(outcome.startsWith("put succeeded"), "a successful put must be readable: " + e);
        }
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
