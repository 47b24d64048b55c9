package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.internal.chain.ChainFaults;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer dies between its first backup's CAS and its primary's, and nobody writes its key again: the primary
 * sweeps the backup before it reclaims the writer's space, so when that space has been written again and the
 * primary is killed (SIGKILL), the promoted backup serves the key's acknowledged value. Without the sweep the
 * promoted backup's slot names reused space and the key reads absent (or damaged). Two nodes, two replicas, a
 * real ZooKeeper.
 */
class ChainSweepFailoverTest extends ZkClusterTestBase
{
    @AfterEach
    void noFaults()
    {
        ChainFaults.afterFirstBackup(null);
    }

    @Test
    void aGoneWritersSpaceIsReusedAndThePromotedBackupStillServesTheAcknowledgedValue() throws Exception
    {
        final ClusterMap map = startReplicated(2, 2, false);
        final ReplicaGroup group = map.groups().getFirst();
        final int primaryPort = cluster.ports[group.primary()];
        final int backupPort = cluster.ports[group.member(1)];
        final byte[] k = LocalCluster.bytes("acknowledged");
        final byte[] acknowledged = value(1, 300);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(20))))
        {
            client.put(k, acknowledged);
            final long slot;
            final long[] dead = new long[1];
            try (RegionView primary = new RegionView(primaryPort); RegionView backup = new RegionView(backupPort);
                KvClient gone = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())))
            {
                slot = primary.find(k).slotOffset();
                ChainFaults.afterFirstBackup(() ->
                {
                    dead[0] = backup.longAt(slot);
                    throw new IllegalStateException("writer died between its backup and its primary");
                });
                assertThrows(IllegalStateException.class, () -> gone.put(k, value(2, 300)));
                ChainFaults.afterFirstBackup(null);
                assertNotEquals(primary.longAt(slot), dead[0], "the backup named the gone writer's block");
            }
            // the gone writer's sessions ended (BYE): the primary puts the backup's slot back, then reclaims
            try (RegionView primary = new RegionView(primaryPort); RegionView backup = new RegionView(backupPort))
            {
                Await.until("the primary puts the backup's slot back", Duration.ofSeconds(30),
                    () -> backup.longAt(slot) == primary.longAt(slot),
                    () -> "backup " + SlotWord.toString(backup.longAt(slot)) + ", primary " +
                        SlotWord.toString(primary.longAt(slot)));
            }

            // write other keys until the gone writer's space holds other blocks (on both replicas)
            final long deadAt = regionOffset(primaryPort, dead[0]);
            final int deadLength = SlotWord.blockLength(dead[0]);
            try (RegionView primary = new RegionView(primaryPort))
            {
                final byte[] before = primary.bytes(deadAt, deadLength);
                boolean reused = false;
                final long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                for (int i = 0; !reused && System.nanoTime() < deadline; i++)
                {
                    client.put(LocalCluster.bytes("filler-" + i % 64), value(i, 8000));
                    reused = i % 100 == 99 && !Arrays.equals(before, primary.bytes(deadAt, deadLength));
                }
                assertTrue(reused, "the gone writer's space was granted and written again");
            }

            cluster.kill(group.primary());
            cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() == group.member(1));
            assertArrayEquals(acknowledged, client.get(k), "the acknowledged value survives the failover");
        }
    }

    private static long regionOffset(final int port, final long word)
    {
        try (RegionView view = new RegionView(port))
        {
            return view.geometry().dataOffset() + SlotWord.blockOffset(word);
        }
    }

    private static byte[] value(final int version, final int length)
    {
        final byte[] v = new byte[length];
        Arrays.fill(v, (byte)version);
        v[0] = (byte)(version >> 8);
        return v;
    }
}
