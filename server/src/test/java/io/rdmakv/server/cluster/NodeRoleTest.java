package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** NodeRole driven with maps by hand against a fake node, copier and coordinator: what it applies and reports. */
class NodeRoleTest
{
    private static final int ME = 2;
    private static final List<ClusterNode> NODES = List.of(new ClusterNode(1, "127.0.0.1", 7401),
        new ClusterNode(2, "127.0.0.1", 7402), new ClusterNode(3, "127.0.0.1", 7403));

    /** What the node was asked to apply: epoch and whether to rebuild its allocator. */
    private record Applied(long epoch, boolean rebuild)
    {
    }

    private record Report(int group, long epoch, boolean finalPass)
    {
    }

    private final List<Applied> applied = Collections.synchronizedList(new ArrayList<>());
    private final BlockingQueue<Report> reports = new LinkedBlockingQueue<>();
    private final BlockingQueue<InetSocketAddress> passes = new LinkedBlockingQueue<>();
    /** Slots each pass changes, in turn; the last repeats. */
    private volatile long[] changes = {0};
    private volatile CountDownLatch passGate = new CountDownLatch(0);
    /** Passes that fail before one works. */
    private final java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
    private final List<Long> epochs = Collections.synchronizedList(new ArrayList<>());
    private NodeRole role;

    private NodeRole role()
    {
        role = new NodeRole(new MapApplier()
        {
            @Override
            public int nodeId()
            {
                return ME;
            }

            @Override
            public int apply(final ClusterMap map, final boolean rebuildAllocator)
            {
                applied.add(new Applied(map.epoch(), rebuildAllocator));
                return 0;
            }
        }, (primary, epoch) ->
        {
            passGate.await();
            epochs.add(epoch);
            if (failures.getAndDecrement() > 0)
            {
                throw new java.io.IOException("primary not reachable yet");
            }
            final int n = passes.size();
            passes.add(primary);
            final long[] c = changes;
            return c[Math.min(n, c.length - 1)];
        }, (group, epoch, finalPass) -> reports.add(new Report(group, epoch, finalPass)));
        return role;
    }

    @AfterEach
    void close()
    {
        if (role != null)
        {
            role.close();
        }
    }

    private static ClusterMap map(final long epoch, final ReplicaGroup group)
    {
        return new ClusterMap(epoch, 8, NODES, 2, List.of(group), new int[8]);
    }

    private static ReplicaGroup group(final int[] members, final int[] copying, final boolean sealed)
    {
        return new ReplicaGroup(0, members, copying, sealed);
    }

    @Test
    void theAllocatorIsRebuiltOnlyWhenTheNodeBecomesPrimary()
    {
        final NodeRole r = role();
        r.onMap(map(1, group(new int[] {1, ME}, null, false)));
        r.onMap(map(2, group(new int[] {ME}, null, false)));
        r.onMap(map(3, group(new int[] {ME, 3}, null, false)));
        r.onMap(map(4, group(new int[] {3, ME}, null, false)));
        r.onMap(map(5, group(new int[] {ME}, null, false)));
        assertEquals(List.of(new Applied(1, false), new Applied(2, true), new Applied(3, false), new Applied(4, false),
            new Applied(5, true)), applied);
        assertEquals(ReplicaRole.PRIMARY, r.role());
        assertEquals(3, r.failovers(), "1 -> 2, 2 -> 3, 3 -> 2");
    }

    @Test
    void aFirstMapThatMakesTheNodePrimaryRebuildsAndOlderOrEqualEpochsAreIgnored()
    {
        final NodeRole r = role();
        r.onMap(map(3, group(new int[] {ME, 1}, null, false)));
        r.onMap(map(3, group(new int[] {1, ME}, null, false)));
        r.onMap(map(2, group(new int[] {1}, new int[] {ME}, false)));
        assertEquals(List.of(new Applied(3, true)), applied);
        assertEquals(3, r.epoch());
        assertEquals(ReplicaRole.PRIMARY, r.role());
    }

    @Test
    void outsideEveryMapTheNodeIsNotInTheClusterAndASpareIs()
    {
        final NodeRole r = role();
        assertFalse(r.inMap());
        assertEquals(ReplicaRole.NONE, r.role());
        assertEquals(0, r.epoch());
        r.onMap(new ClusterMap(1, 8, NODES.subList(0, 1), 1, List.of(ReplicaGroup.single(1)), new int[] {1, 1, 1, 1, 1, 1, 1, 1}));
        assertFalse(r.inMap(), "a map that does not list the node");
        r.onMap(new ClusterMap(2, 8, NODES, 1, List.of(ReplicaGroup.single(1)), new int[] {1, 1, 1, 1, 1, 1, 1, 1}));
        assertTrue(r.inMap());
        assertEquals(ReplicaRole.SPARE, r.role());
        r.onZooKeeper(false);
        assertFalse(r.zooKeeperConnected());
        assertEquals(ReplicaRole.SPARE, r.role(), "ZooKeeper down: the map applied stays");
        assertEquals(2, r.epoch());
    }

    @Test
    void aCopyingNodePassesUntilQuietThenReportsBulkAndAfterTheSealOnePassAndFinal() throws InterruptedException
    {
        changes = new long[] {5000, 300, 10};
        final NodeRole r = role();
        r.onMap(map(4, group(new int[] {1, 3}, new int[] {ME}, false)));
        assertEquals(new Report(0, 4, false), reports.poll(30, TimeUnit.SECONDS));
        assertEquals(3, passes.size(), "passes until one changed nothing much");
        assertEquals(new InetSocketAddress("127.0.0.1", 7401), passes.peek(), "against the group's primary");
        assertEquals(ReplicaRole.COPYING, r.role());
        r.onMap(map(5, group(new int[] {1, 3}, new int[] {ME}, true)));
        assertEquals(new Report(0, 5, true), reports.poll(30, TimeUnit.SECONDS));
        assertEquals(4, passes.size(), "one pass in the sealed epoch");
        assertEquals(4, r.copyPasses());
        assertEquals(5000 + 300 + 10 + 10, r.copySlots());
        r.onMap(map(6, group(new int[] {1, 3, ME}, null, false)));
        assertEquals(ReplicaRole.BACKUP, r.role());
        assertFalse(applied.getLast().rebuild(), "a new backup does not rebuild");
    }

    @Test
    void passesThatKeepChangingAsMuchStopAndReportBulk() throws InterruptedException
    {
        changes = new long[] {1000, 900, 950};
        final NodeRole r = role();
        r.onMap(map(7, group(new int[] {1}, new int[] {ME}, false)));
        assertEquals(new Report(0, 7, false), reports.poll(30, TimeUnit.SECONDS));
        assertEquals(3, passes.size(), "the third pass changed no fewer slots than the second");
    }

    @Test
    void aMapChangeAbandonsTheCopyUnderWayAndNothingIsReportedForTheOldEpoch() throws InterruptedException
    {
        passGate = new CountDownLatch(1);
        final CountDownLatch gate = passGate;
        final NodeRole r = role();
        r.onMap(map(4, group(new int[] {1}, new int[] {ME}, false)));
        r.onMap(map(5, group(new int[] {3}, new int[] {ME}, false)));
        gate.countDown();
        assertEquals(new Report(0, 5, false), reports.poll(30, TimeUnit.SECONDS));
        assertNull(reports.poll(200, TimeUnit.MILLISECONDS), "no report for epoch 4");
        assertEquals(new InetSocketAddress("127.0.0.1", 7403), new ArrayList<>(passes).getLast(),
            "the new epoch's primary");
    }

    @Test
    void aFailedPassIsRetriedForTheSameEpoch() throws InterruptedException
    {
        failures.set(1);
        final NodeRole r = role();
        r.onMap(map(8, group(new int[] {1}, new int[] {ME}, false)));
        assertEquals(new Report(0, 8, false), reports.poll(30, TimeUnit.SECONDS));
        assertEquals(List.of(8L, 8L), epochs, "the failed pass, then the one that worked, both for epoch 8");
        assertEquals(1, r.copyPasses(), "only passes that finished count");
    }
}
