package io.rdmakv.bench;

import io.rdmakv.peer.WaitStrategy;
import org.junit.jupiter.api.Test;

import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benchmark mains' command lines, parsed as each main parses them (nothing is run): {@code --help} prints
 * the usage and exits 0; an unknown option, a value that does not convert or a missing required option says
 * why with the usage on stderr and exits 2; the defaults are the ones bench/*.sh and docs/benchmarks.md rely on.
 */
class BenchCommandLinesTest
{
    @Test
    void storeBenchmark()
    {
        assertHelpAndRefusals("StoreBenchmark", StoreBenchmark.Options::new, "--records", null);
        final String help = run(new StoreBenchmark.Options(), "--help").out();
        assertTrue(help.contains("[--hosts=H:P[,...]]") && help.contains("Default: 127.0.0.1:7400"),
            "--hosts is optional, with its default: " + help);
        final StoreBenchmark.Options options = parsed(new StoreBenchmark.Options());
        assertEquals("127.0.0.1:7400", options.cluster.hosts);
        assertEquals("auto", options.cluster.transport);
        assertEquals(10_000, options.records);
        assertEquals(100_000, options.ops);
        assertEquals(1, options.threads);
        assertEquals(1024, options.valueSize);
        assertEquals(50, options.readPercent);
        assertEquals(WaitStrategy.ADAPTIVE, options.wait);
        final StoreBenchmark.Options given = parsed(new StoreBenchmark.Options(), "--hosts", "h:1,h:2",
            "--transport", "tcp", "--threads", "4", "--wait", "busy-spin");
        assertEquals("h:1,h:2", given.cluster.hosts);
        assertEquals("tcp", given.cluster.transport);
        assertEquals(4, given.threads);
        assertEquals(WaitStrategy.BUSY_SPIN, given.wait);
    }

    @Test
    void batchBenchmark()
    {
        assertHelpAndRefusals("BatchBenchmark", BatchBenchmark.Options::new, "--batch", null);
        final BatchBenchmark.Options options = parsed(new BatchBenchmark.Options());
        assertEquals("127.0.0.1:7400", options.cluster.hosts);
        assertEquals("auto", options.cluster.transport);
        assertEquals("get", options.mode);
        assertEquals(10_000, options.records);
        assertEquals(200_000, options.ops);
        assertEquals(16, options.batch);
        assertEquals(1024, options.valueSize);
    }

    @Test
    void connectBenchmark()
    {
        assertHelpAndRefusals("ConnectBenchmark", ConnectBenchmark.Options::new, "--connects", "--hosts");
        final ConnectBenchmark.Options options = parsed(new ConnectBenchmark.Options(), "--hosts", "h:1");
        assertEquals("h:1", options.cluster.hosts);
        assertEquals("tcp", options.cluster.transport);
        assertEquals("", options.token);
        assertEquals(200, options.connects);
        assertEquals(20, options.warmup);
    }

    @Test
    void firstOperation()
    {
        assertHelpAndRefusals("FirstOperation", FirstOperation.Options::new, "--rounds", "--hosts");
        final FirstOperation.Options options = parsed(new FirstOperation.Options(), "--hosts", "h:1");
        assertEquals("auto", options.cluster.transport);
        assertEquals(11, options.rounds);
    }

    @Test
    void verbsBenchmark()
    {
        assertHelpAndRefusals("VerbsBenchmark", VerbsBenchmark.Options::new, "--iterations", null);
        final VerbsBenchmark.Options options = parsed(new VerbsBenchmark.Options());
        assertEquals("tcp", options.provider);
        assertEquals(50_000, options.iterations);
        assertEquals(20_000, options.warmup);
    }

    /**
     * {@code --help}; an unknown option; {@code numeric} given a word; and, where {@code required} names one,
     * the command line without it.
     */
    private static void assertHelpAndRefusals(final String name, final java.util.function.Supplier<Object> options,
        final String numeric, final String required)
    {
        final CommandLineRun help = run(options.get(), "--help");
        assertEquals(OptionalInt.of(0), help.exit());
        assertTrue(help.out().startsWith("Usage: " + name), help.out());
        assertTrue(help.out().contains(numeric), help.out());
        assertEquals("", help.err());
        if (required != null)
        {
            assertTrue(help.out().contains(" " + required + "=") && !help.out().contains("[" + required + "="),
                "the synopsis shows " + required + " as required: " + help.out());
        }

        final String[] base = required == null ? new String[0] : new String[] {required, "h:1"};
        final CommandLineRun unknown = run(options.get(), with(base, "--no-such-flag"));
        assertEquals(OptionalInt.of(BenchArgs.USAGE), unknown.exit());
        assertTrue(unknown.err().startsWith(name + ": Unknown option: '--no-such-flag'"), unknown.err());
        assertTrue(unknown.err().contains("Usage: " + name), unknown.err());
        assertEquals("", unknown.out());

        final CommandLineRun bad = run(options.get(), with(base, numeric, "many"));
        assertEquals(OptionalInt.of(BenchArgs.USAGE), bad.exit());
        assertTrue(bad.err().startsWith(name + ": Invalid value for option '" + numeric + "': 'many' is not an int"),
            bad.err());

        if (required != null)
        {
            final CommandLineRun missing = run(options.get());
            assertEquals(OptionalInt.of(BenchArgs.USAGE), missing.exit());
            assertTrue(missing.err().startsWith(name + ": Missing required option: '" + required + "="), missing.err());
        }
    }

    private static String[] with(final String[] base, final String... more)
    {
        final String[] args = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        return args;
    }

    private static <T> T parsed(final T options, final String... args)
    {
        final CommandLineRun run = run(options, args);
        assertEquals(OptionalInt.empty(), run.exit(), run.err());
        return options;
    }

    private static CommandLineRun run(final Object options, final String... args)
    {
        return CommandLineRun.parse(options, args);
    }
}
