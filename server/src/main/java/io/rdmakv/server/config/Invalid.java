package io.rdmakv.server.config;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Refusals of option values that name the option, the value and what was expected. */
final class Invalid
{
    private Invalid()
    {
    }

    /**
     * "Invalid value for option '--listen': expected HOST:PORT, not 'x'", carrying the option so the
     * error handler can say where the value came from (flag, environment or config file).
     */
    static CommandLine.ParameterException value(final CommandSpec spec, final String option, final Object value,
        final String expected)
    {
        final CommandLine.Model.OptionSpec argSpec = spec.findOption(option);
        return new CommandLine.ParameterException(spec.commandLine(), "Invalid value for option '" + option +
            "': expected " + expected + ", not '" + value + "'", argSpec, String.valueOf(value));
    }

    /** "Invalid value for option '--chunk-size' ('64'): reason". */
    static CommandLine.ParameterException because(final CommandSpec spec, final String option, final Object value,
        final String reason)
    {
        final CommandLine.Model.OptionSpec argSpec = spec.findOption(option);
        return new CommandLine.ParameterException(spec.commandLine(), "Invalid value for option '" + option +
            "' ('" + value + "'): " + reason, argSpec, String.valueOf(value));
    }
}
