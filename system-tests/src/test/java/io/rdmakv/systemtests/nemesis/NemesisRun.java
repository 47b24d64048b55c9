package io.rdmakv.systemtests.nemesis;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The nemesis: three ZooKeeper servers, three nodes (groups of two; five, from the move phase on, in a run that has
 * one: {@link MoveNemesis}) and {@code clients} client processes, each in its own namespace. Per fault type a phase
 * runs {@code rounds} rounds of that fault on fresh keys under load, waiting for the groups to be back in sync (every
 * node on the same newest epoch, each group at two members) after each; then final reads and the checks of
 * {@link HistoryAnalysis}. With {@code minutes} above 0, passes over the fault list repeat until that time has
 * passed. Writes the report to {@code out}, logs and histories to {@code out/work}.
 */
final class NemesisRun
{
    record Settings(List<Fault> faults, int rounds, int minutes, int clients, int threads, int keys, Path out)
    {
    }

    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(120);

    private final Settings settings;
    private final Path work;
    private final List<String> timeline = Collections.synchronizedList(new ArrayList<>());
    private long origin;

    NemesisRun(final Settings settings)
    {
        this.settings = settings;
        this.work = settings.out().resolve("work");
    }

    NemesisReport run() throws Exception
    {
        final long start = System.nanoTime();
        deleteTree(work);
        Files.createDirectories(work);
        final List<PhaseResult> phases = new ArrayList<>();
        String aborted = null;
        try (NetNamespaces net = NetNamespaces.create(); ZkEnsemble zk = new ZkEnsemble(net, work);
             NemesisNodes nodes = new NemesisNodes(net, work, zk.connectString(), moves());
             MoveNemesis mover = moves() ? new MoveNemesis(zk.connectString(), nodes, this::note) : null)
        {
            final List<String> clientAddresses = new ArrayList<>();
            for (int c = 0; c < settings.clients(); c++)
            {
                clientAddresses.add(net.add("c" + c, 30 + c));
            }
            zk.startAll();
            nodes.startAll();
            log("cluster up, in sync at epoch " + nodes.awaitInSync(SYNC_TIMEOUT).epoch());
            final FaultInjector injector = new FaultInjector(nodes, zk, clientAddresses, this::note);
            final long deadline = start + Duration.ofMinutes(settings.minutes()).toNanos();
            for (int pass = 0; aborted == null && (pass == 0 || System.nanoTime() < deadline); pass++)
            {
                for (int f = 0; f < settings.faults().size() && aborted == null; f++)
                {
                    if (pass > 0 && System.nanoTime() >= deadline)
                    {
                        break;
                    }
                    final PhaseResult phase = phase(settings.faults().get(f), f, pass, nodes, injector, mover,
                        clientAddresses);
                    phases.add(phase);
                    log(phase.fault().label + " pass " + pass + ": " + phase.analysis().operations() + " ops, " +
                        phase.analysis().violations().size() + " keys not linearizable, " + phase.analysis().lostWrites() +
                        " lost, " + phase.analysis().staleReads() + " stale reads" +
                        (phase.error() == null ? "" : "; error: " + phase.error()));
                    try
                    {
                        nodes.awaitInSync(SYNC_TIMEOUT);
                    }
                    catch (final IllegalStateException e)
                    {
                        aborted = e.getMessage();
                    }
                }
            }
        }
        catch (final Exception e)
        {
            aborted = "the run failed: " + e;
        }
        final NemesisReport report = new NemesisReport(phases, aborted, (System.nanoTime() - start) / 1_000_000);
        report.write(settings.out());
        log("report: " + settings.out().toAbsolutePath().resolve("report.md"));
        return report;
    }

    /** Whether the run has a {@link Fault#MOVE} phase (two more nodes, 16 partitions). */
    private boolean moves()
    {
        return settings.faults().contains(Fault.MOVE);
    }

    private PhaseResult phase(final Fault fault, final int index, final int pass, final NemesisNodes nodes,
        final FaultInjector injector, final MoveNemesis mover, final List<String> clientAddresses) throws Exception
    {
        timeline.clear();
        origin = System.nanoTime();
        final String prefix = fault.label + "-" + pass + "-";
        if (fault == Fault.MOVE)
        {
            mover.prepare();
            note("in sync at epoch " + nodes.awaitInSync(SYNC_TIMEOUT).epoch() + " with two groups");
        }
        final List<NemesisClient> clients = new ArrayList<>();
        for (int c = 0; c < settings.clients(); c++)
        {
            clients.add(NemesisClient.start("c" + c, clientAddresses.get(c), c, work, nodes.seeds(), prefix,
                settings.keys(), settings.threads()));
        }
        for (final NemesisClient c : clients)
        {
            c.awaitRunning(60_000);
        }
        note("phase " + prefix + ": " + settings.clients() + " clients of " + settings.threads() + " threads running");
        String error = null;
        int rounds = 0;
        try
        {
            Thread.sleep(2000);
            for (int r = 0; r < settings.rounds(); r++)
            {
                if (fault == Fault.MOVE)
                {
                    mover.round(r, prefix, settings.keys());
                }
                else
                {
                    injector.apply(fault, r, (r + index + pass) % 2 == 0);
                }
                rounds++;
                final ClusterMap map = nodes.awaitInSync(SYNC_TIMEOUT);
                note("in sync at epoch " + map.epoch() + ": " + map.groups());
                Thread.sleep(1000);
            }
        }
        catch (final IllegalStateException e)
        {
            error = e.getMessage();
            note("error: " + error);
        }
        final List<OpLine> history = new ArrayList<>();
        for (final NemesisClient c : clients)
        {
            history.addAll(c.stop());
        }
        note("clients stopped");
        history.addAll(finalReads(nodes, prefix));
        note("final reads done");
        history.sort(Comparator.comparingLong(OpLine::invoke));
        dump(work.resolve(prefix + "merged.history"), history);
        return new PhaseResult(fault, pass, rounds, HistoryAnalysis.of(history, new LinearizabilityChecker(), origin),
            List.copyOf(timeline), error);
    }

    /** One GET of every key from the control address, each tried up to five times. */
    private List<OpLine> finalReads(final NemesisNodes nodes, final String prefix) throws InterruptedException
    {
        final List<OpLine> reads = new ArrayList<>();
        try (KvClient reader = KvClient.connect(NemesisNodes.clientConfig(nodes.seeds(), NetNamespaces.CONTROL_ADDRESS,
            Duration.ofSeconds(5))))
        {
            for (int key = 0; key < settings.keys(); key++)
            {
                for (int attempt = 0; attempt < 5; attempt++)
                {
                    final long invoke = System.nanoTime();
                    try
                    {
                        final byte[] v = reader.get((prefix + key).getBytes());
                        reads.add(new OpLine(HistoryAnalysis.FINAL_READER, "GET", key,
                            OpLine.show(NemesisClientMain.read(v)), "-", invoke, System.nanoTime(), "ok", "final-read"));
                        break;
                    }
                    catch (final RuntimeException e)
                    {
                        note("final read of key " + key + " failed: " + e);
                        Thread.sleep(1000);
                    }
                }
            }
        }
        return reads;
    }

    private void note(final String event)
    {
        final String line = String.format("%9.3f s  %s", (System.nanoTime() - origin) / 1e9, event);
        timeline.add(line);
        log(line);
    }

    private static void log(final String line)
    {
        System.out.println("[nemesis] " + line);
    }

    private void dump(final Path file, final List<OpLine> history) throws IOException
    {
        final StringBuilder out = new StringBuilder("# times in ms from the phase start; " +
            "process op key value expected invoke complete outcome note\n");
        timeline.forEach(t -> out.append("# ").append(t).append('\n'));
        for (final OpLine op : history)
        {
            out.append(op.process()).append('\t').append(op.op()).append('\t').append(op.key()).append('\t')
                .append(op.value()).append('\t').append(op.expected()).append('\t')
                .append(String.format("%.3f", (op.invoke() - origin) / 1e6)).append('\t')
                .append(op.complete() < 0 ? "inf" : String.format("%.3f", (op.complete() - origin) / 1e6)).append('\t')
                .append(op.outcome()).append('\t').append(op.note()).append('\n');
        }
        Files.writeString(file, out);
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (var paths = Files.walk(dir))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(p);
            }
        }
    }
}
