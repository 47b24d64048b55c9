package io.rdmakv.systemtests.replication;

import io.rdmakv.client.CorruptedBlockException;
import io.rdmakv.client.KvClient;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REPAIR in a replicated group. A key whose block is damaged on every replica (no whole copy left to heal from)
 * is cleared along the chain, each backup first and the primary last, as a DELETE would be, so a PUT or DELETE
 * of it works again and the replicas stay equal. A key damaged on the primary only is not cleared: the backup
 * still holds it whole, the write fails saying so, and the primary's scrub rewrites the damaged copy from the
 * backup's. Each write after the damage comes from a client with an empty slot cache: a writer that cached the
 * slot a moment ago may CAS its word blind (the block it names cannot have been reused yet), which replaces the
 * damaged block without reading it, and is allowed to.
 */
class ReplicatedRepairTest
{
    @TempDir
    Path dir;

    private ReplicatedPair group;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(group);
    }

    private void damageEverywhere(final byte[] key)
    {
        for (final int port : group.ports)
        {
            try (RegionView view = new RegionView(port))
            {
                view.flip(view.valueOffset(view.find(key)) + 3);
            }
        }
    }

    @Test
    void aKeyDamagedOnEveryReplicaIsClearedAlongTheChainAndCanBeWrittenAndDeletedAgain()
    {
        group = ReplicatedPair.start(dir, 3, ReplicatedPair.strayWritesAllowed());
        final byte[] rewritten = LocalCluster.bytes("damaged-then-put");
        final byte[] deleted = LocalCluster.bytes("damaged-then-deleted");
        try (KvClient client = group.client())
        {
            client.put(rewritten, LocalCluster.bytes("first value"));
            client.put(deleted, LocalCluster.bytes("doomed value"));
            for (int i = 0; i < 20; i++)
            {
                client.put(LocalCluster.bytes("neighbour-" + i), LocalCluster.bytes("value " + i));
            }
            damageEverywhere(rewritten);
            damageEverywhere(deleted);
        }
        // a client of its own: the writer's slot cache may still trust its entries (a PUT within half the grace
        // period of its last one CASes the cached word blind, replacing the damaged block without reading it)
        try (KvClient client = group.client())
        {
            assertThrows(CorruptedBlockException.class, () -> client.get(rewritten));

            client.put(rewritten, LocalCluster.bytes("second value"));
            assertArrayEquals(LocalCluster.bytes("second value"), client.get(rewritten));
            assertTrue(client.delete(deleted), "a damaged key counts as present: its DELETE clears it");
            assertNull(client.get(deleted));
            for (int i = 0; i < 20; i++)
            {
                assertArrayEquals(LocalCluster.bytes("value " + i), client.get(LocalCluster.bytes("neighbour-" + i)));
            }
            for (int n = 0; n < group.nodes.length; n++)
            {
                assertEquals(2, group.nodes[n].counters().get(ServerCounter.REPAIRED_SLOTS),
                    "node " + n + " cleared each damaged slot once");
            }
        }
        group.assertReplicasEqual();
    }

    @Test
    void aWriteOfAKeyDamagedOnThePrimaryOnlyIsRefusedUntilTheScrubHealsItFromTheBackup() throws Exception
    {
        group = ReplicatedPair.start(dir, 2, ReplicatedPair.strayWritesAllowed());
        final byte[] key = LocalCluster.bytes("damaged-on-the-primary");
        final byte[] value = LocalCluster.bytes("the acknowledged value");
        try (KvClient client = group.client())
        {
            client.put(key, value);
            try (RegionView primary = new RegionView(group.ports[0]))
            {
                primary.flip(primary.valueOffset(primary.find(key)) + 3);
            }
        }
        // a client of its own, for the reason above
        try (KvClient client = group.client())
        {
            final CorruptedBlockException refused = assertThrows(CorruptedBlockException.class,
                () -> client.put(key, LocalCluster.bytes("a new value")));
            assertTrue(refused.getMessage().contains("holds the block whole") &&
                refused.getMessage().contains("kvctl scrub"), refused.getMessage());
            assertEquals(0, group.nodes[1].counters().get(ServerCounter.REPAIRED_SLOTS), "the whole copy kept");

            assertEquals(1, group.nodes[0].scrubNow().get(30, TimeUnit.SECONDS).healedHere());
            assertArrayEquals(value, client.get(key), "healed from the backup");
            client.put(key, LocalCluster.bytes("a new value"));
            assertArrayEquals(LocalCluster.bytes("a new value"), client.get(key));
        }
        group.assertReplicasEqual();
    }
}
