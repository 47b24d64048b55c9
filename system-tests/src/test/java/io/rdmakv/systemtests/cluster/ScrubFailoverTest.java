package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.Forgery;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * A backup forged behind the primary's back (a well-formed block with a valid checksum written over one key's block,
 * another key's slot CASed to empty: any authenticated client can, windows being off in a replicated group) is
 * mended by the primary's scrub before the primary is killed (SIGKILL), so the promoted backup serves both keys'
 * acknowledged values. Without the scrub it served the forged value and lost the other key. Two nodes, two
 * replicas, a real ZooKeeper, a scrub every 300 ms.
 */
class ScrubFailoverTest extends ZkClusterTestBase
{
    @Test
    void aForgedBackupIsMendedBeforeAFailoverServesIt() throws Exception
    {
        final ClusterMap map = startReplicated(2, 2, false, List.of("--scrub-interval-ms", "300",
            // off so that this test can play the stray WRITE of a bug or bad memory (ReplicaWindowsTest: a client cannot)
            "--memory-windows", "off"));
        final ReplicaGroup group = map.groups().getFirst();
        final int primaryPort = cluster.ports[group.primary()];
        final int backupPort = cluster.ports[group.member(1)];
        final byte[] overwritten = LocalCluster.bytes("overwritten");
        final byte[] cleared = LocalCluster.bytes("cleared");
        final byte[] acknowledged = new byte[300];
        Arrays.fill(acknowledged, (byte)7);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(20))))
        {
            client.put(overwritten, acknowledged);
            client.put(cleared, acknowledged);
            final RegionView.Slot forged;
            final long clearedSlot;
            try (RegionView backup = new RegionView(backupPort))
            {
                forged = Forgery.overwrite(backup, overwritten);
                final RegionView.Slot gone = backup.find(cleared);
                clearedSlot = gone.slotOffset();
                backup.swapSlot(gone, SlotWord.EMPTY);
            }
            assertArrayEquals(acknowledged, client.get(overwritten), "readers read the primary: nothing notices");
            try (RegionView primary = new RegionView(primaryPort); RegionView backup = new RegionView(backupPort))
            {
                Await.until("the primary's scrub mends the backup", Duration.ofSeconds(30),
                    () -> backup.longAt(clearedSlot) == primary.longAt(clearedSlot) &&
                        Arrays.equals(primary.bytes(forged.blockOffset(), forged.blockLength()),
                            backup.bytes(forged.blockOffset(), forged.blockLength())),
                    () -> "backup slot " + SlotWord.toString(backup.longAt(clearedSlot)) + ", primary " +
                        SlotWord.toString(primary.longAt(clearedSlot)));
            }

            cluster.kill(group.primary());
            cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() == group.member(1));
            assertArrayEquals(acknowledged, client.get(overwritten), "the acknowledged value, not the forged one");
            assertArrayEquals(acknowledged, client.get(cleared), "the acknowledged value, not gone");
        }
    }
}
