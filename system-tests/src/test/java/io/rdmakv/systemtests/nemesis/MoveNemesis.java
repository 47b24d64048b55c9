package io.rdmakv.systemtests.nemesis;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.cluster.map.MoveRequest;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.zk.ZkPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryNTimes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@link Fault#MOVE} phase's driver ("move under faults", issue 23). It talks to the cluster's ZooKeeper
 * namespace {@code /rdmakv/nemesis} from the control address, as an operator would, and watches the coordinator's map
 * znode itself (a phase may last less than a probe of every node takes).
 * <p>{@link #prepare}: once per run, the two extra nodes start, {@code rebalance/auto} is turned on so that they form
 * group 1 and the coordinator moves partitions to it by shares (rule 5), then off again once the shares are met and
 * the source reclaimed; from then on only this driver's requests move anything. Creation gives group 0's partitions
 * its whole arena, so this is what gives both groups room for moves either way.
 * <p>{@link #round}: the partitions holding the phase's keys that the group owning most of them owns move to the other
 * group ({@code rebalance/request}), so the keys go back and forth from round to round when moves finish; the round's
 * fault ({@link Kind}, in turn) hits the source or target primary at the named phase of that batch; then the round
 * waits until the batch is gone (finished or abandoned) and every retired segment is reclaimed.
 */
final class MoveNemesis implements AutoCloseable
{
    /** What hits the move, round by round in this order. */
    enum Kind
    {
        /** SIGKILL of the source group's primary with the batch in FREEZE (the failover map abandons it). */
        KILL_SOURCE_IN_FREEZE("SIGKILL of the source primary in FREEZE"),
        /** SIGSTOP of the target group's primary in COPY past the session timeout, then SIGCONT (abandoned). */
        STOP_TARGET_IN_COPY("SIGSTOP of the target primary in COPY"),
        /** SIGKILL of the target group's primary with the batch at SWITCH (the move finishes). */
        KILL_TARGET_AT_SWITCH("SIGKILL of the target primary at SWITCH"),
        /** No fault: the move alone under load. */
        NONE("no fault");

        final String label;

        Kind(final String label)
        {
            this.label = label;
        }
    }

    /** Curator and the ZooKeeper client log every connection at INFO to this JVM's stderr: kept to warnings. */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("org.apache.zookeeper"),
        Logger.getLogger("org.apache.curator"));
    private static final Duration GROWTH_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration MOVE_TIMEOUT = Duration.ofSeconds(120);

    private final CuratorFramework zk;
    private final NemesisNodes nodes;
    private final Consumer<String> note;

    MoveNemesis(final String connectString, final NemesisNodes nodes, final Consumer<String> note)
    {
        this.nodes = nodes;
        this.note = note;
        QUIET.forEach(l -> l.setLevel(Level.WARNING));
        zk = CuratorFrameworkFactory.builder().connectString(connectString).retryPolicy(new RetryNTimes(5, 200))
            .sessionTimeoutMs(15_000).connectionTimeoutMs(5000).namespace("rdmakv/" + NemesisNodes.CLUSTER).build();
    }

    /** Makes two groups with room for moves both ways (once per run: a later pass finds them). */
    void prepare() throws InterruptedException
    {
        if (zk.getState() == CuratorFrameworkState.LATENT)
        {
            zk.start();
        }
        if (map().groups().size() >= 2)
        {
            return;
        }
        nodes.startExtra();
        setAuto("on");
        note.accept("growth: nodes " + NemesisNodes.COUNT + ".." + (NemesisNodes.COUNT + NemesisNodes.EXTRA - 1) +
            " started, rebalance/auto on");
        final ClusterMap grown = awaitMap("a second group", GROWTH_TIMEOUT,
            m -> m.groups().size() >= 2 && NemesisNodes.fullyReplicated(m));
        note.accept("growth: group formed at epoch " + grown.epoch() + ": " + grown.groups());
        final int half = grown.partitionCount() / 2;
        final ClusterMap shared = awaitMap("the partitions shared by rule 5", GROWTH_TIMEOUT,
            m -> m.moves().batches().isEmpty() && owned(m, m.groups().get(1).id()) >= half - 1);
        setAuto("off");
        final ClusterMap settled = awaitMap("the moves of rule 5 reclaimed", GROWTH_TIMEOUT, m -> m.moves().isEmpty());
        note.accept("growth: shares met at epoch " + shared.epoch() + ", rebalance/auto off, reclaimed at epoch " +
            settled.epoch() + ": " + ownership(settled));
    }

    /** Round {@code round} of the phase whose keys are {@code prefix<0..keys-1>}. */
    void round(final int round, final String prefix, final int keys) throws InterruptedException
    {
        final Kind kind = Kind.values()[round % Kind.values().length];
        final ClusterMap before = map();
        final TreeMap<Integer, TreeSet<Integer>> byGroup = new TreeMap<>();
        for (final ReplicaGroup g : before.groups())
        {
            byGroup.put(g.id(), new TreeSet<>());
        }
        for (int k = 0; k < keys; k++)
        {
            final int p = KeyHash.partition(KeyHash.hash((prefix + k).getBytes(StandardCharsets.UTF_8)),
                before.partitionCount());
            byGroup.get(before.groupFor(p).id()).add(p);
        }
        int source = byGroup.firstKey();
        for (final var e : byGroup.entrySet())
        {
            source = e.getValue().size() > byGroup.get(source).size() ? e.getKey() : source;
        }
        final int from = source;
        final int target = byGroup.keySet().stream().filter(g -> g != from).findFirst().orElseThrow();
        final int[] partitions = byGroup.get(source).stream().mapToInt(Integer::intValue).toArray();
        note.accept("move round " + round + " (" + kind.label + "): partitions " + Arrays.toString(partitions) +
            " of the keys from group " + source + " to group " + target + " (epoch " + before.epoch() + ", " +
            ownership(before) + ")");
        request(partitions, target);
        final ClusterMap started = awaitMap("the requested batch", Duration.ofSeconds(60),
            m -> batchOf(m, partitions[0], target) != null || m.groupFor(partitions[0]).id() == target);
        final MoveBatch batch = batchOf(started, partitions[0], target);
        if (batch == null)
        {
            throw new IllegalStateException("the move of " + Arrays.toString(partitions) + " was over before it was seen");
        }
        note.accept("batch " + batch.id() + " in " + batch.phase() + " at epoch " + started.epoch());
        switch (kind)
        {
            case KILL_SOURCE_IN_FREEZE -> kill(at(batch, MovePhase.FREEZE), source);
            case STOP_TARGET_IN_COPY ->
            {
                final ClusterMap at = at(batch, MovePhase.COPY);
                final int victim = group(at, target).primary();
                note.accept("SIGSTOP of target primary node " + victim);
                nodes.process(victim).signal("STOP");
                Thread.sleep(FaultInjector.HOLD_MS);
                nodes.process(victim).signal("CONT");
                note.accept("node " + victim + " continued");
            }
            case KILL_TARGET_AT_SWITCH -> kill(at(batch, MovePhase.SWITCH), target);
            case NONE ->
            {
            }
        }
        final ClusterMap over = awaitMap("batch " + batch.id() + " over", MOVE_TIMEOUT,
            m -> m.moves().batch(batch.id()) == null);
        final boolean finished = over.groupFor(partitions[0]).id() == target;
        note.accept("batch " + batch.id() + (finished ? " finished" : " abandoned") + " at epoch " + over.epoch() +
            ": " + ownership(over) + ", groups " + over.groups());
        final ClusterMap reclaimed = awaitMap("no batch and nothing retired", MOVE_TIMEOUT, m -> m.moves().isEmpty());
        note.accept("no batch, nothing retired at epoch " + reclaimed.epoch());
    }

    /** The newest map once {@code batch} is in {@code phase} or further, or gone (noted: the fault then lands later). */
    private ClusterMap at(final MoveBatch batch, final MovePhase phase) throws InterruptedException
    {
        final ClusterMap m = awaitMap("batch " + batch.id() + " in " + phase, MOVE_TIMEOUT, x -> {
            final MoveBatch b = x.moves().batch(batch.id());
            return b == null || b.phase().ordinal() >= phase.ordinal();
        });
        final MoveBatch b = m.moves().batch(batch.id());
        note.accept(b == null ? "fault point missed: batch " + batch.id() + " over before " + phase + " was seen (epoch " +
            m.epoch() + "): the fault lands after it" : "fault point: batch " + batch.id() + " in " + b.phase() +
            " at epoch " + m.epoch() + (b.phase() == phase ? "" : " (" + phase + " not seen)"));
        return m;
    }

    /** SIGKILL of {@code group}'s primary in {@code at}; restarted (empty, a spare) once no group has it. */
    private void kill(final ClusterMap at, final int group) throws InterruptedException
    {
        final int victim = group(at, group).primary();
        note.accept("SIGKILL of group " + group + "'s primary node " + victim);
        nodes.kill(victim);
        try
        {
            final ClusterMap replaced = nodes.awaitWithout(victim, Duration.ofSeconds(60));
            note.accept("node " + victim + " replaced: epoch " + replaced.epoch() + ", groups " + replaced.groups());
        }
        finally
        {
            nodes.start(victim);
            note.accept("node " + victim + " restarted");
        }
    }

    private static MoveBatch batchOf(final ClusterMap map, final int partition, final int target)
    {
        final MoveBatch b = map.moves().batchOf(partition);
        return b != null && b.target() == target ? b : null;
    }

    private static ReplicaGroup group(final ClusterMap map, final int id)
    {
        return map.groups().stream().filter(g -> g.id() == id).findFirst()
            .orElseThrow(() -> new IllegalStateException("no group " + id + " in " + map));
    }

    private static int owned(final ClusterMap map, final int group)
    {
        int n = 0;
        for (int p = 0; p < map.partitionCount(); p++)
        {
            n += map.groupFor(p).id() == group ? 1 : 0;
        }
        return n;
    }

    private static String ownership(final ClusterMap map)
    {
        final StringBuilder s = new StringBuilder("partitions per group");
        for (final ReplicaGroup g : map.groups())
        {
            s.append(' ').append(g.id()).append(':').append(owned(map, g.id()));
        }
        return s.toString();
    }

    private void setAuto(final String value)
    {
        try
        {
            zk.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO,
                value.getBytes(StandardCharsets.UTF_8));
        }
        catch (final Exception e)
        {
            throw new IllegalStateException("cannot write rebalance/auto = " + value + ": " + e, e);
        }
    }

    private void request(final int[] partitions, final int target)
    {
        try
        {
            zk.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_REQUEST, new MoveRequest(0,
                List.of(new MoveRequest.Wanted(partitions, target, 0)), List.of()).toJson());
        }
        catch (final Exception e)
        {
            throw new IllegalStateException("cannot write rebalance/request: " + e, e);
        }
    }

    /** The map the coordinator wrote last. */
    ClusterMap map()
    {
        try
        {
            return StoredMap.fromJson(zk.getData().forPath(ZkPaths.MAP)).map();
        }
        catch (final Exception e)
        {
            throw new IllegalStateException("cannot read the map znode: " + e, e);
        }
    }

    /** Waits until the coordinator's map satisfies {@code condition}, polling every 10 ms. */
    private ClusterMap awaitMap(final String what, final Duration timeout, final Predicate<ClusterMap> condition)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        ClusterMap last = null;
        String failure = null;
        while (System.nanoTime() < deadline)
        {
            try
            {
                last = map();
                if (condition.test(last))
                {
                    return last;
                }
            }
            catch (final IllegalStateException e)
            {
                failure = e.getMessage();
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what + "; last map: " + last +
            (failure == null ? "" : "; last failure: " + failure));
    }

    @Override
    public void close()
    {
        zk.close();
    }
}
