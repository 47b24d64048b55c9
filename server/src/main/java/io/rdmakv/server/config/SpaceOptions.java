package io.rdmakv.server.config;

import io.rdmakv.common.layout.RegionGeometry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.concurrent.TimeUnit;

/** The region and its space: size, chunk size, grace period, session quota, huge pages, memory windows. */
public final class SpaceOptions
{
    @Option(names = "--memory", paramLabel = "SIZE", defaultValue = "1g", converter = SizeConverter.class,
        description = "Region size: index (1/" + RegionGeometry.INDEX_FRACTION + ") plus data area, e.g. 512m, 4g. " +
            "Default: ${DEFAULT-VALUE}.")
    private long memory;

    @Option(names = "--chunk-size", paramLabel = "SIZE", defaultValue = "1m", converter = SizeConverter.class,
        description = "Data space granted to a client per request. Default: ${DEFAULT-VALUE}.")
    private long chunkSize;

    @Option(names = "--grace-ms", paramLabel = "MS", defaultValue = "100",
        description = "How long freed space waits before reuse. Default: ${DEFAULT-VALUE}.")
    private long graceMs;

    @Option(names = "--session-quota", paramLabel = "SIZE", defaultValue = "0", converter = SizeConverter.class,
        description = "The most data space one client session may hold granted and not freed, e.g. 256m; an ALLOC " +
            "beyond it is refused with QUOTA_EXCEEDED. 0 means a quarter of the data area. Default: ${DEFAULT-VALUE}.")
    private long sessionQuota;

    @Option(names = "--huge-pages", paramLabel = "true|false", arity = "0..1", fallbackValue = "true",
        defaultValue = "false",
        description = "Map the region 2 MiB aligned and advise transparent huge pages (madvise) before it is " +
            "touched. Default: ${DEFAULT-VALUE}.")
    private boolean hugePages;

    @Option(names = "--memory-windows", paramLabel = "auto|on|off", defaultValue = "auto",
        description = "Scope remote writes per session with type-2 memory windows: the data area is readable by " +
            "every session and writable only through a window over each grant, bound on its own session's queue " +
            "pair. auto: where the device has windows (else off, with a warning); on: refuse to start without " +
            "them; off: every session may write the whole data area. Default: ${DEFAULT-VALUE}.")
    private String memoryWindows;

    /** Sets region size, chunk size, grace period, session quota and huge pages; refuses a region too small for one chunk. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (chunkSize <= 0 || chunkSize > RegionGeometry.MAX_CHUNK_SIZE)
        {
            throw Invalid.value(spec, "--chunk-size", chunkSize, "1.." + RegionGeometry.MAX_CHUNK_SIZE + " bytes");
        }
        final long minimum = RegionGeometry.minimumMemory((int)chunkSize);
        if (memory < minimum)
        {
            throw Invalid.value(spec, "--memory", memory, "at least " + minimum + " bytes for chunks of " +
                chunkSize + " bytes");
        }
        if (graceMs < 0 || graceMs > TimeUnit.DAYS.toMillis(1))
        {
            throw Invalid.value(spec, "--grace-ms", graceMs, "0.." + TimeUnit.DAYS.toMillis(1) + " milliseconds");
        }
        try
        {
            RegionGeometry.forMemory(memory, (int)chunkSize);
        }
        catch (final IllegalArgumentException e)
        {
            throw Invalid.because(spec, "--chunk-size", chunkSize, e.getMessage());
        }
        if (sessionQuota < 0 || sessionQuota > memory)
        {
            throw Invalid.value(spec, "--session-quota", sessionQuota, "0 (a quarter of the data area) up to the " +
                "region size, " + memory + " bytes");
        }
        final MemoryWindowMode windows = MemoryWindowMode.parse(memoryWindows);
        if (windows == null)
        {
            throw Invalid.value(spec, "--memory-windows", memoryWindows, "auto, on or off");
        }
        builder.memoryWindows(windows).memoryBytes(memory).chunkSize((int)chunkSize).graceMillis(graceMs).hugePages(hugePages)
            .sessionQuotaBytes(sessionQuota);
    }
}
