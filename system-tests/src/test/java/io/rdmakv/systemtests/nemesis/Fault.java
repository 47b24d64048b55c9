package io.rdmakv.systemtests.nemesis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The nemesis's faults, each applied to the group's primary or its backup (the ZooKeeper ones to the ensemble). */
enum Fault
{
    /** The node cut from the three ZooKeeper servers (both directions), clients and peers still reach it. */
    ZK_CUT("zk-cut"),
    /** The node cut from the client namespaces (both directions), ZooKeeper and peers still reach it. */
    CLIENT_CUT("client-cut"),
    /** The node cut from the other kvserver nodes (both directions). */
    GROUP_CUT("group-cut"),
    /** The node drops everything that comes from ZooKeeper, peers and clients; it still sends. */
    ONE_WAY_IN("one-way-in"),
    /** The node drops everything it sends to ZooKeeper, peers and clients; it still receives. */
    ONE_WAY_OUT("one-way-out"),
    /** SIGSTOP past the session timeout, then SIGCONT. */
    STOP("stop"),
    /** SIGKILL, then a restart (empty) once the group has replaced it. */
    KILL("kill"),
    /** SIGTERM, then a restart (empty) once the group has replaced it. */
    TERM("term"),
    /** One ZooKeeper server killed, then restarted. */
    ZK_ONE("zk-one"),
    /** Two ZooKeeper servers killed (quorum lost), then restarted. */
    ZK_QUORUM("zk-quorum"),
    /**
     * Move under faults: each round moves the partitions of the phase's keys from one replica group to the other
     * while the source or target primary is hit mid-move (SIGKILL of the source primary in FREEZE, SIGSTOP of the
     * target primary past the session in COPY, SIGKILL of the target primary at SWITCH, no fault), in turn; see
     * {@link MoveNemesis}. Its run has two more nodes and 16 partitions ({@link NemesisNodes}).
     */
    MOVE("move");

    final String label;

    Fault(final String label)
    {
        this.label = label;
    }

    /** Whether it targets one kvserver node of group 0 (else the ZooKeeper ensemble, or a move's groups). */
    boolean targetsNode()
    {
        return this != ZK_ONE && this != ZK_QUORUM && this != MOVE;
    }

    /** Parses "all" or a comma-separated list of labels ("one-way" is one-way-in and one-way-out). */
    static List<Fault> parse(final String text)
    {
        if ("all".equals(text.strip()))
        {
            return List.of(values());
        }
        final Set<Fault> faults = new LinkedHashSet<>();
        for (final String label : text.split(","))
        {
            final String l = label.strip();
            if ("one-way".equals(l))
            {
                faults.add(ONE_WAY_IN);
                faults.add(ONE_WAY_OUT);
                continue;
            }
            faults.add(Arrays.stream(values()).filter(f -> f.label.equals(l)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown fault '" + l + "'; known: all, one-way, " +
                    Arrays.stream(values()).map(f -> f.label).toList())));
        }
        return new ArrayList<>(faults);
    }
}
