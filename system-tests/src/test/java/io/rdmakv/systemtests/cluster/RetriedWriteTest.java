package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.internal.ChainFaults;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PUT or DELETE whose first backup took its word, and whose primary then died (SIGKILL) before the primary's
 * CAS, took effect: the failover promotes that backup. The client then sees its lane fail and runs the write
 * again on the new map, but only after checking that it did not happen. Here another client writes the key in
 * between (on the new primary), so running the first write again would undo that later write: the value one
 * writer acknowledged would go back to, or be deleted by, an earlier write. The failover linearizability test
 * caught a DELETE doing this once. Three nodes, two replicas, a real ZooKeeper.
 */
class RetriedWriteTest extends ZkClusterTestBase
{
    @AfterEach
    void noFaults()
    {
        ChainFaults.afterFirstBackup(null);
    }

    @Test
    void aPutThatTookEffectBeforeTheFailoverDoesNotUndoALaterWrite() throws Exception
    {
        final byte[] later = LocalCluster.bytes("written after the failover");
        final byte[] after = raceAcrossFailover(client -> client.put(LocalCluster.bytes("k"),
            LocalCluster.bytes("first writer")), later);
        assertArrayEquals(later, after, "the later write stands: the first PUT is not run a second time");
    }

    /**
     * The later insert's value is longer than the deleted one's, so it never lands at the deleted block's offset
     * with the same word; that case (the same word back) is told apart by the block's writer epoch, which a
     * test cannot force the allocator into here.
     */
    @Test
    void aDeleteThatTookEffectBeforeTheFailoverDoesNotDeleteALaterInsert() throws Exception
    {
        final byte[] later = new byte[300];
        java.util.Arrays.fill(later, (byte)'L');
        final byte[] after = raceAcrossFailover(client -> client.delete(LocalCluster.bytes("k")), later);
        assertArrayEquals(later, after, "the later insert stands: the first DELETE is not run a second time");
    }

    /**
     * An insert that took effect at its first backup, which the failover promoted, and was deleted there by
     * another client before the insert went on: the key is absent again, as if the insert had never happened.
     * Run again, the insert would bring back a value a DELETE removed after readers saw it; it must not run again
     * (its effect is unknown: it fails saying so), and the key stays absent.
     */
    @Test
    void anInsertDeletedAfterTheFailoverIsNotRunAgain() throws Exception
    {
        final byte[] k = LocalCluster.bytes("k");
        final java.util.concurrent.atomic.AtomicReference<byte[]> seen = new java.util.concurrent.atomic.AtomicReference<>();
        final ClusterMap map = startReplicated(3, 2, false);
        final ReplicaGroup group = map.groups().getFirst();
        try (KvClient writer = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(Duration.ofSeconds(30)));
            KvClient other = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(Duration.ofSeconds(30))))
        {
            final AtomicBoolean faulted = new AtomicBoolean();
            ChainFaults.afterFirstBackup(() ->
            {
                if (!faulted.compareAndSet(false, true))
                {
                    return;
                }
                try
                {
                    cluster.kill(group.primary());
                    cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                        m -> m.groups().getFirst().primary() == group.member(1));
                    ChainFaults.afterFirstBackup(null);
                    seen.set(other.get(k));
                    other.delete(k);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            });
            final io.rdmakv.client.KvConnectionException e = assertThrows(io.rdmakv.client.KvConnectionException.class,
                () -> writer.put(k, LocalCluster.bytes("inserted")));
            assertTrue(e.getMessage().contains("whether this write took effect is unknown"), e.getMessage());
            assertTrue(faulted.get(), "the fault ran inside the write");
            assertArrayEquals(LocalCluster.bytes("inserted"), seen.get(), "the promoted backup served the insert");
            assertNull(other.get(k), "the DELETE after it stands");
        }
    }

    /**
     * Writes key "k", then runs {@code write} with a fault after its first backup's CAS: the primary is killed,
     * the backup promoted, and another client writes {@code later}; then the write goes on (its primary's CAS
     * fails, it follows the map, finds the key changed and fails with its effect unknown). Returns the key's value
     * at the end.
     */
    private byte[] raceAcrossFailover(final java.util.function.Consumer<KvClient> write, final byte[] later)
        throws Exception
    {
        final ClusterMap map = startReplicated(3, 2, false);
        final ReplicaGroup group = map.groups().getFirst();
        final byte[] k = LocalCluster.bytes("k");
        try (KvClient writer = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(Duration.ofSeconds(30)));
            KvClient other = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(Duration.ofSeconds(30))))
        {
            writer.put(k, LocalCluster.bytes("before"));
            final AtomicBoolean faulted = new AtomicBoolean();
            ChainFaults.afterFirstBackup(() ->
            {
                if (!faulted.compareAndSet(false, true))
                {
                    return;
                }
                try
                {
                    cluster.kill(group.primary());
                    cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                        m -> m.groups().getFirst().primary() == group.member(1));
                    ChainFaults.afterFirstBackup(null);
                    other.put(k, later);

                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            });
            try
            {
                write.accept(writer);
            }
            catch (final io.rdmakv.client.KvConnectionException e)
            {
                // the key changed since the write may have taken effect: it may not report success, and says its
                // effect is unknown; what matters is that it does not run again over the later write
                assertTrue(e.getMessage().contains("whether this write took effect is unknown"), e.getMessage());
            }
            assertTrue(faulted.get(), "the fault ran inside the write");
            return other.get(k);
        }
    }
}
