package io.rdmakv.server.config;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The value of an option not given on the command line: its {@code RDMAKV_*} environment variable,
 * else its key in the config file, else nothing (picocli then uses the built-in default). Remembers
 * where each value came from, so that a refused value can be traced to the variable or the file.
 */
public final class LayeredDefaults implements CommandLine.IDefaultValueProvider
{
    /** Every environment variable is this prefix plus the long option name, upper case, '-' as '_'. */
    public static final String ENV_PREFIX = "RDMAKV_";

    private final Set<String> onCommandLine;
    private final Map<String, String> environment;
    private final ConfigFile file;
    private final Map<String, String> sources = new ConcurrentHashMap<>();

    /**
     * @param onCommandLine long option names ({@code --memory}) given on the command line: never defaulted
     * @param environment   the process environment
     * @param file          the config file, or null
     */
    public LayeredDefaults(final Set<String> onCommandLine, final Map<String, String> environment,
        final ConfigFile file)
    {
        this.onCommandLine = Set.copyOf(onCommandLine);
        this.environment = Map.copyOf(environment);
        this.file = file;
    }

    /** The environment variable of an option: {@code --node-id} is {@code RDMAKV_NODE_ID}. */
    public static String variable(final String longOption)
    {
        return ENV_PREFIX + longOption.replaceFirst("^-+", "").toUpperCase(Locale.ROOT).replace('-', '_');
    }

    @Override
    public String defaultValue(final ArgSpec argSpec)
    {
        if (!(argSpec instanceof OptionSpec option) || option.usageHelp() || option.versionHelp())
        {
            return null;
        }
        final String name = option.longestName();
        if (onCommandLine.contains(name))
        {
            return null;
        }
        final String variable = variable(name);
        final String fromEnvironment = environment.get(variable);
        if (fromEnvironment != null)
        {
            sources.put(name, "environment variable " + variable);
            return fromEnvironment;
        }
        final String key = name.replaceFirst("^-+", "");
        final String fromFile = file == null ? null : file.value(key);
        if (fromFile != null)
        {
            sources.put(name, "config file " + file.path() + ", key '" + key + "'");
            return fromFile;
        }
        return null;
    }

    /** Where the value of {@code longOption} came from ("environment variable ..."), or null for flag/default. */
    public String sourceOf(final String longOption)
    {
        return sources.get(longOption);
    }
}
