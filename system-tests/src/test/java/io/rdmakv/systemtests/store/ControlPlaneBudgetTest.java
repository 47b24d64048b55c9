package io.rdmakv.systemtests.store;

import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.internal.session.ClientJanitor;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's CPU stays out of the data path: what the client's counters say about control messages. */
class ControlPlaneBudgetTest
{
    @Test
    void getsSendNoControlMessagesAndPutsAtMostOnePerHundred() throws InterruptedException
    {
        try (LocalCluster cluster = new LocalCluster(); KvClient client = cluster.client())
        {
            final int keys = 2_000;
            final byte[] value = new byte[1024];
            new SplittableRandom(5).nextBytes(value);
            for (int k = 0; k < keys; k++)
            {
                client.put(("budget-" + k).getBytes(), value);
            }
            // The PUTs' FREEs (the unused tail of each extent given up) are sent once due, by the lane or, now
            // that it may go idle, by the client's janitor: let them go before the GETs are counted.
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(SpaceTiming.FREE_FLUSH_NANOS + 2 * ClientJanitor.TICK_NANOS));
            final ClientStats beforeGets = client.stats();
            for (int i = 0; i < 5_000; i++)
            {
                client.get(("budget-" + (i % keys)).getBytes());
            }
            final ClientStats afterGets = client.stats();
            assertEquals(5_000, afterGets.gets() - beforeGets.gets());
            assertEquals(0, afterGets.controlMessages() - beforeGets.controlMessages(), "control messages for GETs");

            final SplittableRandom random = new SplittableRandom(6);
            for (int i = 0; i < 10_000; i++)
            {
                client.put(("budget-" + random.nextInt(keys)).getBytes(), value);
            }
            final ClientStats afterPuts = client.stats();
            final long puts = afterPuts.puts() - afterGets.puts();
            final long control = afterPuts.controlMessages() - afterGets.controlMessages();
            assertEquals(10_000, puts);
            assertTrue(control * 100 <= puts, control + " control messages for " + puts + " PUTs of 1 KiB");
            assertTrue(control > 0, "superseded blocks must be freed through the control plane");
            assertEquals(0, afterPuts.errors());
        }
    }
}
