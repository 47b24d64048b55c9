package io.rdmakv.systemtests.replication;

import io.rdmakv.client.CorruptedBlockException;
import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.control.Scrubs;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.Forgery;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backup drifts from its primary behind everyone's back (an authenticated client, without memory windows in a
 * replicated group, WRITEs a well-formed block with a valid checksum over a key's block on the backup only, and
 * CASes another key's slot there to empty; reads go to the primary, so nothing notices): the primary's scrub finds
 * both and mends them (the block at once; the word once two passes in a row saw the same difference), so the
 * backup holds the acknowledged values again.
 */
class BackupScrubTest
{
    @TempDir
    Path dir;

    private ReplicatedPair group;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(group);
    }

    @Test
    void aForgedBlockAndAClearedSlotOnABackupAreMendedByThePrimarysScrub() throws Exception
    {
        group = ReplicatedPair.start(dir, 2, ReplicatedPair.strayWritesAllowed());
        final KvServer primary = group.nodes[0];
        final byte[] overwritten = LocalCluster.bytes("overwritten");
        final byte[] cleared = LocalCluster.bytes("cleared");
        final byte[] value = new byte[200];
        Arrays.fill(value, (byte)7);
        try (KvClient client = group.client())
        {
            client.put(overwritten, value);
            client.put(cleared, value);
            for (int i = 0; i < 50; i++)
            {
                client.put(LocalCluster.bytes("other-" + i), value);
            }
            try (RegionView backup = new RegionView(group.ports[1]))
            {
                final RegionView.Slot slot = Forgery.overwrite(backup, overwritten);
                final RegionView.Slot gone = backup.find(cleared);
                backup.swapSlot(gone, SlotWord.EMPTY);
                assertNotEquals(value[0], backup.bytes(backup.valueOffset(slot), 1)[0], "the backup's copy is forged");
            }
            assertArrayEquals(value, client.get(overwritten), "readers read the primary: nothing notices");

            final Scrubs.Pass first = primary.scrubNow().get(30, TimeUnit.SECONDS);
            assertEquals(1, first.backups());
            assertEquals(1, first.blocksRepaired(), "the forged block written over at once");
            assertEquals(0, first.wordsRepaired(), "a different word is mended only when the next pass sees it again");
            final Scrubs.Pass second = primary.scrubNow().get(30, TimeUnit.SECONDS);
            assertEquals(1, second.wordsRepaired(), "the cleared slot put back to the primary's word");
            assertEquals(0, second.blocksRepaired());
            final Scrubs.Pass third = primary.scrubNow().get(30, TimeUnit.SECONDS);
            assertEquals(0, third.wordsRepaired() + third.blocksRepaired(), "nothing left to mend");
            assertEquals(1, primary.counters().get(ServerCounter.SCRUB_BLOCKS_REPAIRED));
            assertEquals(1, primary.counters().get(ServerCounter.SCRUB_WORDS_REPAIRED));
            assertEquals(3, primary.counters().get(ServerCounter.SCRUB_PASSES));
        }
        group.assertReplicasEqual();
    }

    /** {@code kvctl scrub} runs a pass on each group's primary at once and prints what it mended. */
    @Test
    void kvctlScrubMendsAForgedBlockAndSaysSo()
    {
        group = ReplicatedPair.start(dir, 2, ReplicatedPair.strayWritesAllowed());
        final byte[] k = LocalCluster.bytes("forged-for-kvctl");
        final byte[] value = new byte[100];
        try (KvClient client = group.client())
        {
            client.put(k, value);
        }
        try (RegionView backup = new RegionView(group.ports[1]))
        {
            Forgery.overwrite(backup, k);
        }
        final java.io.StringWriter out = new java.io.StringWriter();
        final java.io.StringWriter err = new java.io.StringWriter();
        final java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--hosts", group.address(0)));
        args.addAll(LocalCluster.kvctlArgs());
        args.add("scrub");
        final int code = io.rdmakv.kvctl.KvCtl.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
            java.util.Map.of(), args.toArray(String[]::new));
        assertEquals(0, code, err.toString());
        final String text = out.toString();
        assertTrue(text.startsWith("group 0, primary node 0: 1 backup(s) scrubbed in "), text);
        assertTrue(text.contains("mended 0 slot(s) and 1 block(s) on backups and 0 damaged block(s) of the primary; " +
            "left 0 to live writers, 0 where the primary's own block is damaged"), text);
        group.assertReplicasEqual();
    }

    /**
     * A block damaged on the primary only (a flipped bit: readers get CorruptedBlockException) is never spread to
     * the backup; the scrub rewrites it from the backup's whole copy, and the key reads again.
     */
    @Test
    void aBlockDamagedOnThePrimaryIsHealedFromTheBackup() throws Exception
    {
        group = ReplicatedPair.start(dir, 2, ReplicatedPair.strayWritesAllowed());
        final KvServer primary = group.nodes[0];
        final byte[] k = LocalCluster.bytes("flipped");
        final byte[] value = new byte[300];
        Arrays.fill(value, (byte)9);
        try (KvClient client = group.client())
        {
            client.put(k, value);
            try (RegionView p = new RegionView(group.ports[0]))
            {
                p.flip(p.valueOffset(p.find(k)) + 17);
            }
            assertThrows(CorruptedBlockException.class, () -> client.get(k), "the primary's copy is damaged");
            final Scrubs.Pass pass = primary.scrubNow().get(30, TimeUnit.SECONDS);
            assertEquals(1, pass.healedHere(), "rewritten from the backup's copy");
            assertEquals(0, pass.blocksRepaired(), "the damaged copy was not spread");
            assertEquals(0, pass.damagedHere());
            assertArrayEquals(value, client.get(k), "the key reads again");
            assertEquals(1, primary.counters().get(ServerCounter.SCRUB_HEALED_HERE));
        }
        group.assertReplicasEqual();
    }
}
