package io.rdmakv.systemtests.nemesis;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Applies one {@link Fault} and heals it: a cut or a pause lasts {@link #HOLD_MS} (three session timeouts, so the
 * node's ZooKeeper session certainly expires); a killed or terminated node is restarted once the group has
 * replaced it. Each step is told to {@code note} for the timeline.
 */
final class FaultInjector
{
    static final long HOLD_MS = 3L * NemesisNodes.SESSION_TIMEOUT_MS;

    private final NemesisNodes nodes;
    private final ZkEnsemble zookeeper;
    private final List<String> clientAddresses;
    private final Consumer<String> note;

    FaultInjector(final NemesisNodes nodes, final ZkEnsemble zookeeper, final List<String> clientAddresses,
        final Consumer<String> note)
    {
        this.nodes = nodes;
        this.zookeeper = zookeeper;
        this.clientAddresses = List.copyOf(clientAddresses);
        this.note = note;
    }

    /** Applies {@code fault} in round {@code round}: to the primary when {@code primary}, else to a backup. */
    void apply(final Fault fault, final int round, final boolean primary) throws InterruptedException
    {
        if (!fault.targetsNode())
        {
            applyToZooKeeper(fault, round);
            return;
        }
        final ClusterMap map = nodes.newestMap();
        if (map == null || map.isSimple())
        {
            throw new IllegalStateException("no node hands out a replicated map: cannot choose a target for " + fault.label);
        }
        final ReplicaGroup group = map.groups().getFirst();
        final int target = primary ? group.primary() : group.member(1);
        final String member = NemesisNodes.member(target);
        note.accept(fault.label + " of " + (primary ? "primary" : "backup") + " node " + target + " (epoch " +
            map.epoch() + ", group " + group + ")");
        switch (fault)
        {
            case ZK_CUT -> hold(() -> Firewall.cut(member, Firewall.Direction.BOTH, zookeeper.addresses()), member);
            case CLIENT_CUT -> hold(() -> Firewall.cut(member, Firewall.Direction.BOTH, clientAddresses), member);
            case GROUP_CUT -> hold(() -> Firewall.cut(member, Firewall.Direction.BOTH, peersOf(target)), member);
            case ONE_WAY_IN -> hold(() -> Firewall.cut(member, Firewall.Direction.IN, everyoneBut(target)), member);
            case ONE_WAY_OUT -> hold(() -> Firewall.cut(member, Firewall.Direction.OUT, everyoneBut(target)), member);
            case STOP ->
            {
                nodes.process(target).signal("STOP");
                Thread.sleep(HOLD_MS);
                nodes.process(target).signal("CONT");
                note.accept("node " + target + " continued");
            }
            case KILL ->
            {
                nodes.kill(target);
                replaceAndRestart(target);
            }
            case TERM ->
            {
                nodes.terminate(target);
                replaceAndRestart(target);
            }
            default -> throw new IllegalArgumentException(fault.label + " does not target a node");
        }
    }

    private void applyToZooKeeper(final Fault fault, final int round) throws InterruptedException
    {
        final int first = round % ZkEnsemble.SIZE;
        final List<Integer> down = fault == Fault.ZK_ONE ? List.of(first) : List.of(first, (first + 1) % ZkEnsemble.SIZE);
        note.accept(fault.label + ": ZooKeeper servers " + down + " killed");
        for (final int s : down)
        {
            zookeeper.kill(s);
        }
        Thread.sleep(HOLD_MS);
        for (final int s : down)
        {
            zookeeper.start(s);
        }
        for (final int s : down)
        {
            zookeeper.awaitListening(s, 60_000);
        }
        note.accept(fault.label + ": ZooKeeper servers " + down + " restarted");
    }

    private void hold(final Runnable cut, final String member) throws InterruptedException
    {
        cut.run();
        try
        {
            Thread.sleep(HOLD_MS);
        }
        finally
        {
            Firewall.heal(member);
            note.accept("healed " + member);
        }
    }

    private void replaceAndRestart(final int target) throws InterruptedException
    {
        try
        {
            final ClusterMap replaced = nodes.awaitWithout(target, Duration.ofSeconds(60));
            note.accept("node " + target + " replaced: epoch " + replaced.epoch() + ", group " + replaced.groups());
        }
        finally
        {
            nodes.start(target);
            note.accept("node " + target + " restarted");
        }
    }

    private List<String> peersOf(final int target)
    {
        final List<String> peers = new ArrayList<>(nodes.addresses());
        peers.remove(target);
        return peers;
    }

    private List<String> everyoneBut(final int target)
    {
        final List<String> all = new ArrayList<>(zookeeper.addresses());
        all.addAll(peersOf(target));
        all.addAll(clientAddresses);
        return all;
    }
}
