package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.server.cluster.map.MapRefusal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A listener that keeps everything it hears, and the threads it heard it on. */
final class Recorder implements MembershipListener
{
    final List<ClusterMap> maps = new CopyOnWriteArrayList<>();
    final List<Boolean> connections = new CopyOnWriteArrayList<>();
    final List<MapRefusal> refusals = new CopyOnWriteArrayList<>();
    final Set<Thread> threads = ConcurrentHashMap.newKeySet();

    @Override
    public void onMap(final ClusterMap map)
    {
        threads.add(Thread.currentThread());
        maps.add(map);
    }

    @Override
    public void onZooKeeper(final boolean connected)
    {
        threads.add(Thread.currentThread());
        connections.add(connected);
    }

    @Override
    public void onMapRefused(final MapRefusal reason, final String detail)
    {
        threads.add(Thread.currentThread());
        refusals.add(reason);
    }

    ClusterMap last()
    {
        return maps.isEmpty() ? null : maps.get(maps.size() - 1);
    }

    /** Maps came in strictly increasing epoch order, all on one thread. */
    void assertOrdered()
    {
        long last = 0;
        for (final ClusterMap map : maps)
        {
            assertTrue(map.epoch() > last, "epochs in order: " + maps.stream().map(ClusterMap::epoch).toList());
            last = map.epoch();
        }
        assertEquals(1, threads.size(), "one listener thread");
    }
}
