package io.rdmakv.server.config;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.concurrent.TimeUnit;

/** How often a replica group's primary scrubs its backups (replication only). */
public final class ScrubOptions
{
    /** The shortest interval accepted: a pass reads each backup's whole index and the blocks it names. */
    static final long MIN_SCRUB_INTERVAL_MS = 100;
    static final long MAX_SCRUB_INTERVAL_MS = TimeUnit.DAYS.toMillis(7);

    @Option(names = "--scrub-interval-ms", paramLabel = "MS", defaultValue = "60000",
        description = "How often the primary of a replica group compares its backups' index words and blocks with " +
            "its own and mends what differs (kvctl scrub runs a pass at once); 0 turns it off. " +
            "Default: ${DEFAULT-VALUE}.")
    private long scrubIntervalMs;

    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (scrubIntervalMs != 0 && (scrubIntervalMs < MIN_SCRUB_INTERVAL_MS || scrubIntervalMs > MAX_SCRUB_INTERVAL_MS))
        {
            throw Invalid.value(spec, "--scrub-interval-ms", scrubIntervalMs, "0 (off) or " + MIN_SCRUB_INTERVAL_MS +
                ".." + MAX_SCRUB_INTERVAL_MS + " milliseconds");
        }
        builder.scrubIntervalNanos(TimeUnit.MILLISECONDS.toNanos(scrubIntervalMs));
    }
}
