package io.rdmakv.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * A bench command line parsed as its main parses it ({@link BenchArgs#parse}), without exiting: the exit status it
 * would end with (empty: it would run), and what it printed.
 *
 * @param exit the exit status, or empty when the command would run
 * @param out  what it printed on stdout
 * @param err  what it printed on stderr
 */
public record CommandLineRun(OptionalInt exit, String out, String err)
{
    /** Parses {@code args} into {@code options}. */
    public static CommandLineRun parse(final Object options, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final OptionalInt exit = BenchArgs.parse(options, args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandLineRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The exit status as text (-1: it would run), stdout and stderr. */
    public String[] fields()
    {
        return new String[] {Integer.toString(exit.orElse(-1)), out, err};
    }
}
