package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Routers refreshed in place (maps that fence nobody) share their sessions without keeping each other: a client
 * whose spares come and go thousands of times between failovers must not hold a router per change.
 */
class RouterLineageTest
{
    private static final Router.SessionOpener NEVER = node ->
    {
        throw new AssertionError("no session is opened here");
    };

    /** A map of group 0 = {1, 2}, fence epoch 1, with {@code spares} spare nodes listed after them. */
    private static ClusterMap map(final long epoch, final int spares)
    {
        final List<ClusterNode> nodes = new ArrayList<>();
        for (int id = 1; id <= 2 + spares; id++)
        {
            nodes.add(new ClusterNode(id, "127.0.0.1", 7000 + id));
        }
        return new ClusterMap(epoch, 1, 64, nodes, 2, List.of(new ReplicaGroup(0, new int[] {1, 2}, null, false)),
            new int[64]);
    }

    @Test
    void aRefreshedRouterDoesNotKeepTheOneItTookOver()
    {
        Router first = new Router(map(1, 0), NEVER, new SlotCache(64));
        final WeakReference<Router> firstRef = new WeakReference<>(first);
        Router current = first;
        final List<WeakReference<Router>> older = new ArrayList<>();
        for (int epoch = 2; epoch <= 50; epoch++)
        {
            final ClusterMap next = map(epoch, epoch % 3);
            assertTrue(current.keepsSessionsFor(next));
            older.add(new WeakReference<>(current));
            current = new Router(next, current);
        }
        first = null;
        awaitCleared(firstRef);
        for (final WeakReference<Router> ref : older)
        {
            awaitCleared(ref);
        }
        assertTrue(current.keepsSessionsFor(map(51, 0)), "the newest router still holds the lineage's sessions");
    }

    private static void awaitCleared(final WeakReference<Router> ref)
    {
        for (int i = 0; i < 50 && ref.get() != null; i++)
        {
            System.gc();
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                fail(e);
            }
        }
        assertNull(ref.get(), "a router taken over is still reachable");
    }
}
