package io.rdmakv.systemtests.nemesis;

import java.nio.file.Path;
import java.util.List;

/**
 * The long nemesis run as a command (scripts/nemesis.sh runs it):
 * {@code NemesisMain [--minutes N] [--faults all|LIST] [--rounds K] [--clients C] [--threads T] [--keys K] [--out DIR]}.
 * Exit status 0 when every key is linearizable, no acknowledged write was lost and the run finished; 1 otherwise;
 * 2 for bad arguments; 3 when the machine cannot host the suite (not root, no ip netns, no nft).
 */
public final class NemesisMain
{
    private NemesisMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        int minutes = 0;
        int rounds = 1;
        int clients = 2;
        int threads = 4;
        int keys = 5;
        List<Fault> faults = List.of(Fault.values());
        Path out = Path.of("system-tests", "target", "nemesis");
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                final String value = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i])
                {
                    case "--minutes" -> minutes = Integer.parseInt(required(args[i], value));
                    case "--rounds" -> rounds = Integer.parseInt(required(args[i], value));
                    case "--clients" -> clients = Integer.parseInt(required(args[i], value));
                    case "--threads" -> threads = Integer.parseInt(required(args[i], value));
                    case "--keys" -> keys = Integer.parseInt(required(args[i], value));
                    case "--faults" -> faults = Fault.parse(required(args[i], value));
                    case "--out" -> out = Path.of(required(args[i], value));
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
                i++;
            }
            if (rounds < 1 || clients < 1 || clients > 9 || threads < 1 || keys < 1 || minutes < 0)
            {
                throw new IllegalArgumentException("need --rounds >= 1, 1 <= --clients <= 9, --threads >= 1, " +
                    "--keys >= 1, --minutes >= 0");
            }
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println("nemesis: " + e.getMessage());
            System.err.println("usage: nemesis [--minutes N] [--faults all|" + String.join(",",
                java.util.Arrays.stream(Fault.values()).map(f -> f.label).toList()) +
                "] [--rounds K] [--clients C] [--threads T] [--keys K] [--out DIR]");
            System.exit(2);
        }
        final String unavailable = NetNamespaces.unavailableReason();
        if (unavailable != null)
        {
            System.err.println("nemesis: cannot run here: " + unavailable);
            System.exit(3);
        }
        final NemesisReport report = new NemesisRun(new NemesisRun.Settings(faults, rounds, minutes, clients, threads,
            keys, out)).run();
        System.out.println(report.markdown().lines().takeWhile(l -> !l.startsWith("## ")).reduce("", (a, b) -> a + b + "\n"));
        System.exit(report.aborted() == null && report.violations() == 0 && report.lostWrites() == 0 ? 0 : 1);
    }

    private static String required(final String option, final String value)
    {
        if (value == null)
        {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }
}
