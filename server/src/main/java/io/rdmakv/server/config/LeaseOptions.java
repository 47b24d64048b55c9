package io.rdmakv.server.config;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.concurrent.TimeUnit;

/** Sessions' leases: how long a client may stay silent, and how often it is told to send a heartbeat. */
public final class LeaseOptions
{
    /**
     * The shortest lease timeout accepted: clients look every 50 ms whether a heartbeat is due, so a shorter
     * lease would be lost to that granularity alone.
     */
    static final long MIN_LEASE_TIMEOUT_MS = 250;
    /** The longest lease timeout accepted: an hour (a frozen client keeps its locks and space that long). */
    static final long MAX_LEASE_TIMEOUT_MS = TimeUnit.HOURS.toMillis(1);

    @Option(names = "--lease-timeout-ms", paramLabel = "MS", defaultValue = "3000",
        description = "A client session that sends no heartbeat for this long is fenced (its queue pair to the " +
            "error state) and its insert locks and space are reclaimed. Default: ${DEFAULT-VALUE}.")
    private long leaseTimeoutMs;

    @Option(names = "--heartbeat-ms", paramLabel = "MS", defaultValue = "500",
        description = "How often clients send a heartbeat on their bootstrap connection (told to them at connect); " +
            "less than half of --lease-timeout-ms. Default: ${DEFAULT-VALUE}.")
    private long heartbeatMs;

    /** Sets the lease timeout and heartbeat interval; refuses a heartbeat that is not well inside the lease. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (leaseTimeoutMs < MIN_LEASE_TIMEOUT_MS || leaseTimeoutMs > MAX_LEASE_TIMEOUT_MS)
        {
            throw Invalid.value(spec, "--lease-timeout-ms", leaseTimeoutMs, MIN_LEASE_TIMEOUT_MS + ".." + MAX_LEASE_TIMEOUT_MS +
                " milliseconds");
        }
        if (heartbeatMs < 1 || 2 * heartbeatMs >= leaseTimeoutMs)
        {
            throw Invalid.value(spec, "--heartbeat-ms", heartbeatMs, "1.." + ((leaseTimeoutMs - 1) / 2) +
                " milliseconds (less than half of --lease-timeout-ms " + leaseTimeoutMs + ")");
        }
        builder.lease(TimeUnit.MILLISECONDS.toNanos(leaseTimeoutMs), TimeUnit.MILLISECONDS.toNanos(heartbeatMs));
    }
}
