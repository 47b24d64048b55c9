package io.rdmakv.systemtests.hardening.repair;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A damaged key can be written and deleted again: the writer's PUT or DELETE reaches the corruption verdict,
 * the node proves the slot is that key's and its block damaged, clears it, and the operation succeeds. Until
 * then a GET keeps failing as damaged (the value is gone; nothing is ever returned from a damaged block).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DamagedSlotRepairTest extends RepairFixture
{
    private final byte[] key = LocalCluster.bytes("victim");

    @Test
    void aSlotPointingOutsideTheDataAreaIsRepairedByAPutAndTheValueReadsBack()
    {
        pointOutside(key, LocalCluster.bytes("the old value"));
        try (KvClient fresh = LocalCluster.client(server))
        {
            getFailsAsDamaged(fresh, key);
            getFailsAsDamaged(fresh, key);
            assertEquals(0, server.counters().get(ServerCounter.REPAIRED_SLOTS), "a GET repairs nothing");

            final byte[] repaired = LocalCluster.bytes("written again");
            fresh.put(key, repaired);
            assertArrayEquals(repaired, fresh.get(key));
            assertArrayEquals(repaired, writer.get(key), "the first writer's cached slot is not trusted blindly");
            neighboursReadFine(fresh);
        }
        assertEquals(1, server.counters().get(ServerCounter.REPAIRED_SLOTS));
        assertEquals(0, server.counters().get(ServerCounter.DEFERRED_REPAIRS), "nothing to wait for out of range");
        assertEquals(1, view.usedSlots().stream().filter(s -> new String(view.keyOf(s)).equals("victim")).count());
    }

    @Test
    void aBlockFailingItsChecksumIsRepairedByADeleteAndTheKeyIsGone()
    {
        flipValueByte(key, LocalCluster.bytes("a value a bad DIMM flips"));
        try (KvClient fresh = LocalCluster.client(server))
        {
            getFailsAsDamaged(fresh, key);
            final long start = System.nanoTime();
            assertTrue(fresh.delete(key), "the key existed, damaged");
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("DELETE of a damaged key took " + millis + " ms (the node waits out a grace period)");
            assertNull(fresh.get(key));
            assertNull(writer.get(key));
            neighboursReadFine(fresh);
            fresh.put(key, LocalCluster.bytes("back"));
            assertArrayEquals(LocalCluster.bytes("back"), writer.get(key));
        }
        assertEquals(1, server.counters().get(ServerCounter.REPAIRED_SLOTS));
        assertTrue(server.counters().get(ServerCounter.DEFERRED_REPAIRS) >= 1, "first sighting: asked to retry");
        assertEquals(0, server.counters().get(ServerCounter.REFUSED_REPAIRS));
    }
}
