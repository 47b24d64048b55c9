package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.concurrent.Racers;
import io.rdmakv.testsupport.linearizability.KeyedCheckResult;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Eight threads on five hot keys while the group's primary is, round after round, killed with SIGKILL and
 * restarted, paused with SIGSTOP past the ZooKeeper session timeout, or stopped with SIGTERM and restarted:
 * every map change (a promotion, a seal and unseal for the copy that follows, a spare joining) happens under
 * load. Each key's history must be linearizable as a register, and the final reads must find every
 * acknowledged write's effect. Property {@code rdmakv.test.mapchange.rounds} (default 1 round of each fault),
 * {@code rdmakv.test.mapchange.faults} (default kill,stop,term; each also as kill-backup, stop-backup and
 * term-backup: the fault hits the group's first backup instead).
 */
class MapChangeHistoryTest extends ZkClusterTestBase
{
    private static final int THREADS = 8;
    private static final int KEYS = 5;
    private static final int ROUNDS = Integer.getInteger("rdmakv.test.mapchange.rounds", 1);
    private static final List<String> FAULTS =
        List.of(System.getProperty("rdmakv.test.mapchange.faults", "kill,stop,term").split(","));

    static
    {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %5$s%6$s%n");
    }

    @Test
    void everyAcknowledgedWriteSurvivesKillsPausesAndStops() throws Exception
    {
        startReplicated(3, 2, false);
        final Path logs = Path.of("target", "mapchange");
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(5))))
        {
            final HotKeyWorkload load = new HotKeyWorkload(client, "mapchange-", KEYS);
            final Thread nemesis = Thread.ofPlatform().name("nemesis").start(() -> faults(load));
            final List<Throwable> failures = Racers.run("mapchange-", THREADS, load::run, Duration.ofMinutes(30));
            nemesis.join();
            assertEquals(List.of(), failures);
            try (KvClient reader = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())))
            {
                load.finalReads(reader);
            }
            load.dump(logs.resolve("history.txt"));
            final KeyedCheckResult<Integer> result = load.history.check(new LinearizabilityChecker());
            System.out.println("[workload] " + load.history.ops().size() + " operations, longest gap " +
                load.longestGapMs() + " ms; " + result.summary());
            if (!result.isLinearizable())
            {
                keepLogs(logs);
            }
            assertTrue(result.isLinearizable(), result.summary() + "\ntimeline:\n" + String.join("\n", load.timeline()));
        }
    }

    private void faults(final HotKeyWorkload load)
    {
        try
        {
            Thread.sleep(1500);
            for (int round = 0; round < ROUNDS; round++)
            {
                for (final String fault : FAULTS)
                {
                    final ClusterMap map = cluster.newestMap();
                    final boolean backup = fault.endsWith("-backup");
                    final int target = backup ? map.groups().getFirst().member(1) : map.groups().getFirst().primary();
                    load.note(fault + " of " + (backup ? "backup " : "primary ") + target + " (epoch " + map.epoch() +
                        ")");
                    switch (fault.replace("-backup", ""))
                    {
                        case "kill" ->
                        {
                            cluster.kill(target);
                            awaitDeparture(load, target);
                            cluster.start(target);
                        }
                        case "stop" ->
                        {
                            cluster.signal(target, "STOP");
                            Thread.sleep(3L * ZkNodes.SESSION_TIMEOUT_MS);
                            cluster.signal(target, "CONT");
                        }
                        default ->
                        {
                            cluster.stop(target);
                            awaitDeparture(load, target);
                            cluster.start(target);
                        }
                    }
                    load.note(fault + " healed");
                    final ClusterMap healed = cluster.awaitMap("groups in sync", Duration.ofSeconds(90),
                        m -> ZkNodes.fullyReplicated(m, 2));
                    load.note("in sync at epoch " + healed.epoch() + ": " + healed.groups());
                    Thread.sleep(1000);
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            load.stop();
        }
    }

    private void awaitDeparture(final HotKeyWorkload load, final int gone) throws InterruptedException
    {
        final ClusterMap after = cluster.awaitMap("node " + gone + " out of its group", Duration.ofSeconds(60),
            m -> java.util.Arrays.stream(m.groups().getFirst().members()).noneMatch(id -> id == gone));
        load.note("epoch " + after.epoch() + ": " + after.groups());
    }

    private void keepLogs(final Path logs) throws IOException
    {
        try (var files = Files.list(dir))
        {
            for (final Path f : files.filter(p -> p.toString().endsWith(".stderr")).toList())
            {
                Files.copy(f, logs.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
