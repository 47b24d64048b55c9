package io.rdmakv.bench;

import io.rdmakv.peer.WaitStrategy;
import picocli.CommandLine;

/**
 * The benchmarks' command lines, parsed with Picocli: each main declares its options as an annotated
 * object and hands it here. {@code --help} prints the usage and exits 0; an unknown option, a missing
 * value or one that does not convert prints why and the usage on stderr and exits {@value #USAGE}.
 */
final class BenchArgs
{
    /** The exit code of bad usage, as for kvserver and kvctl. */
    static final int USAGE = 2;

    private BenchArgs()
    {
    }

    /** Fills {@code options} from {@code args}, or exits as the class comment says. */
    static <T> T parse(final T options, final String[] args)
    {
        final CommandLine cli = new CommandLine(options);
        try
        {
            cli.parseArgs(args);
        }
        catch (final CommandLine.ParameterException e)
        {
            usageError(cli, e.getMessage());
        }
        if (cli.isUsageHelpRequested())
        {
            cli.usage(System.out);
            System.exit(0);
        }
        return options;
    }

    /** Says what is wrong with the options already parsed into {@code options}, prints the usage and exits. */
    static void usageError(final Object options, final String message)
    {
        usageError(new CommandLine(options), message);
    }

    private static void usageError(final CommandLine cli, final String message)
    {
        System.err.println(cli.getCommandName() + ": " + message);
        cli.usage(System.err);
        System.exit(USAGE);
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
