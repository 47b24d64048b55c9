package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.PlannerRun;
import io.rdmakv.server.cluster.zk.ZkCredentials;
import io.rdmakv.server.cluster.zk.ZkOptions;
import org.apache.curator.test.TestingServer;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Memberships of made-up nodes (fake ports, no KvServer) against one ZooKeeper {@link TestingServer}. Waits
 * are for conditions with a generous deadline, never for a time.
 */
final class ZkTestCluster implements AutoCloseable
{
    static final Duration DEADLINE = Duration.ofSeconds(60);

    final TestingServer server;
    final int replicas;
    final int sessionTimeoutMs;
    final Map<Integer, ZkMembership> nodes = new TreeMap<>();
    final Map<Integer, Recorder> recorders = new TreeMap<>();
    /** The digest credential every node started by {@link #start} authenticates with (null: none). */
    private ZkCredentials credentials;
    /** How long a new coordinator waits before it creates the first map ({@link #withCreationSettle}). */
    private int settleMs = 300;
    /** {@code --move-stuck-ms} of every node started from now on ({@link #withMoveStuckMs}). */
    private long moveStuckMs = ZkOptions.DEFAULT_MOVE_STUCK_MS;

    ZkTestCluster(final int replicas, final int sessionTimeoutMs) throws Exception
    {
        this.server = new TestingServer(true);
        this.replicas = replicas;
        this.sessionTimeoutMs = sessionTimeoutMs;
    }

    ZkOptions options()
    {
        final ZkOptions open = new ZkOptions(server.getConnectString(), "test", replicas, 8, sessionTimeoutMs, settleMs)
            .withMoveStuckMs(moveStuckMs);
        return credentials == null ? open : open.withCredentials(credentials);
    }

    /**
     * The product's settle time ({@link ZkOptions#DEFAULT_SETTLE_MS}) instead of 300 ms, for a test that needs every
     * node it starts in the first map: the map is created a settle time after the first node leads, and under load
     * (6 on two cores) starting four memberships one after another took longer than 300 ms, so the last joined as
     * a spare and the expected groups never formed (ZkMembershipTest, once in four runs).
     */
    ZkTestCluster withCreationSettle()
    {
        this.settleMs = ZkOptions.DEFAULT_SETTLE_MS;
        return this;
    }

    /** Nodes started from now on abort a move batch stuck in one phase this long when they coordinate. */
    ZkTestCluster withMoveStuckMs(final long ms)
    {
        this.moveStuckMs = ms;
        return this;
    }

    /** Nodes started from now on authenticate with {@code credentials} (and lock the cluster's znodes to it). */
    ZkTestCluster withCredentials(final ZkCredentials credentials)
    {
        this.credentials = credentials;
        return this;
    }

    static MemberInfo member(final int id, final long incarnation)
    {
        return new MemberInfo(id, "127.0.0.1", 17400 + id, PlannerRun.GEOMETRY, incarnation);
    }

    ZkMembership start(final int id) throws IOException
    {
        final Recorder recorder = new Recorder();
        final ZkMembership m = ZkMembership.start(options(), member(id, 1000 + id), recorder);
        nodes.put(id, m);
        recorders.put(id, recorder);
        return m;
    }

    /** Closes node {@code id}'s membership (as a node that stops: its znodes go). */
    void stop(final int id)
    {
        nodes.remove(id).close();
        recorders.remove(id);
    }

    /** Waits until every running node's listener has a map that {@code test} accepts; that map (node's view). */
    ClusterMap awaitMap(final String what, final Predicate<ClusterMap> test)
    {
        await(what, () -> recorders.values().stream().allMatch(r -> r.last() != null && test.test(r.last())));
        return recorders.values().iterator().next().last();
    }

    ZkMembership coordinator()
    {
        return nodes.values().stream().filter(ZkMembership::isCoordinator).findFirst().orElse(null);
    }

    static void await(final String what, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("not within " + DEADLINE + ": " + what);
            }
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        for (final ZkMembership m : nodes.values())
        {
            m.close();
        }
        nodes.clear();
        server.close();
    }
}
