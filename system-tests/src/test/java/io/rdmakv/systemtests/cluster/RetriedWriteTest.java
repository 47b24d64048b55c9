package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.internal.chain.ChainFaults;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        final Race race = raceAcrossFailover(true, client -> client.put(K, LocalCluster.bytes("first writer")),
            other -> other.put(K, later));
        assertArrayEquals(later, race.after(), "the later write stands: the first PUT is not run a second time");
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
        final Race race = raceAcrossFailover(true, client -> client.delete(K), other -> other.put(K, later));
        assertArrayEquals(later, race.after(), "the later insert stands: the first DELETE is not run a second time");
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
        final java.util.concurrent.atomic.AtomicReference<byte[]> seen = new java.util.concurrent.atomic.AtomicReference<>();
        final Race race = raceAcrossFailover(false, client -> client.put(K, LocalCluster.bytes("inserted")), other ->
        {
            seen.set(other.get(K));
            other.delete(K);
        });
        assertTrue(race.unknown(), "the insert fails with its effect unknown");
        assertArrayEquals(LocalCluster.bytes("inserted"), seen.get(), "the promoted backup served the insert");
        assertNull(race.after(), "the DELETE after it stands");
    }

    private static final byte[] K = LocalCluster.bytes("k");

    /** How {@link #raceAcrossFailover} ended: the key's value, and whether the write failed with its effect unknown. */
    private record Race(byte[] after, boolean unknown)
    {
    }

    /**
     * Writes key "k" first when {@code existing}, then runs {@code write} with a fault after its first backup's
     * CAS: the primary is killed, the backup promoted, and another client runs {@code meanwhile}; then the write
     * goes on (its primary's CAS fails, it follows the map and checks the key). A write whose effect cannot be
     * told fails saying so; any other failure fails the test. Returns the key's value at the end.
     */
    private Race raceAcrossFailover(final boolean existing, final java.util.function.Consumer<KvClient> write,
        final java.util.function.Consumer<KvClient> meanwhile) throws Exception
    {
        final ClusterMap map = startReplicated(3, 2, false);
        final ReplicaGroup group = map.groups().getFirst();
        try (KvClient writer = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(Duration.ofSeconds(30)));
            KvClient other = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(Duration.ofSeconds(30))))
        {
            if (existing)
            {
                writer.put(K, LocalCluster.bytes("before"));
            }
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
                    meanwhile.accept(other);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            });
            boolean unknown = false;
            try
            {
                write.accept(writer);
            }
            catch (final io.rdmakv.client.KvConnectionException e)
            {
                // the key changed since the write may have taken effect: it may not report success, and says its
                // effect is unknown; what matters is that it does not run again over the later write
                assertTrue(e.getMessage().contains("whether this write took effect is unknown"), e.getMessage());
                unknown = true;
            }
            assertTrue(faulted.get(), "the fault ran inside the write");
            return new Race(other.get(K), unknown);
        }
    }
}
