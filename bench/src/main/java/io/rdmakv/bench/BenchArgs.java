package io.rdmakv.bench;

import io.rdmakv.peer.WaitStrategy;
import picocli.CommandLine;

import java.io.PrintStream;
import java.util.OptionalInt;

/**
 * The benchmarks' command lines, parsed with Picocli: each main declares its options as an annotated
 * object (the cluster's in a {@link ClusterOptions} mixin, a tool's file arguments as positional parameters)
 * and hands it here. {@code --help} prints the usage
 * and exits 0; an unknown option, a missing value or one that does not convert prints why and the usage on
 * stderr and exits {@value #USAGE}. The usage shows each option's default where it has one.
 */
public final class BenchArgs
{
    /** The exit code of bad usage, as for kvserver and kvctl. */
    public static final int USAGE = 2;

    private BenchArgs()
    {
    }

    /** Fills {@code options} from {@code args}, or exits as the class comment says. */
    public static <T> T parse(final T options, final String[] args)
    {
        final OptionalInt exit = parse(options, args, System.out, System.err);
        if (exit.isPresent())
        {
            System.exit(exit.getAsInt());
        }
        return options;
    }

    /**
     * Fills {@code options} from {@code args}; returns empty when the benchmark is to run, else the exit status
     * after printing the usage to {@code out} ({@code --help}) or what is wrong and the usage to {@code err}.
     */
    public static OptionalInt parse(final Object options, final String[] args, final PrintStream out, final PrintStream err)
    {
        final CommandLine cli = commandLine(options);
        try
        {
            cli.parseArgs(args);
            if (cli.isUsageHelpRequested())
            {
                cli.usage(out);
                return OptionalInt.of(0);
            }
            return OptionalInt.empty();
        }
        catch (final CommandLine.ParameterException e)
        {
            printUsageError(cli, e.getMessage(), err);
            return OptionalInt.of(USAGE);
        }
    }

    /** Says what is wrong with the options already parsed into {@code options}, prints the usage and exits. */
    static void usageError(final Object options, final String message)
    {
        printUsageError(commandLine(options), message, System.err);
        System.exit(USAGE);
    }

    /** The command line of {@code options}, with the defaults its {@link ClusterOptions} gives. */
    private static CommandLine commandLine(final Object options)
    {
        final CommandLine cli = new CommandLine(options);
        for (final Object mixin : cli.getMixins().values())
        {
            if (mixin instanceof ClusterOptions cluster)
            {
                cli.setDefaultValueProvider(cluster);
            }
        }
        return cli;
    }

    private static void printUsageError(final CommandLine cli, final String message, final PrintStream err)
    {
        err.println(cli.getCommandName() + ": " + message);
        cli.usage(err);
    }

    /** {@code busy-spin}, {@code adaptive} or {@code blocking}, as {@link WaitStrategy#parse} reads them. */
    static final class WaitConverter implements CommandLine.ITypeConverter<WaitStrategy>
    {
        @Override
        public WaitStrategy convert(final String value)
        {
            return WaitStrategy.parse(value);
        }
    }
}
