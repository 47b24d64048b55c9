package io.rdmakv.client.internal.lane;

/**
 * The client's counters, one constant each (Aeron counters style): a lane keeps their values in one
 * {@code long[]} indexed by {@link #ordinal()}, and statistics and metrics iterate this enum instead of
 * hand-kept field lists. A counter with a {@link #metricName()} is exported by the client's metrics.
 */
public enum ClientCounter
{
    GETS(null, null),
    PUTS(null, null),
    DELETES(null, null),
    COMPARE_AND_SETS(null, null),
    NOT_FOUND(null, null),
    CONFLICTS(null, null),
    ERRORS(null, null),
    ROUND_TRIPS("rdmakv_client_round_trips_total", "Network round trips (doorbells waited on), all operations"),
    CAS_RETRIES("rdmakv_client_cas_retries_total", "Slot compare-and-swaps that lost a race and were retried"),
    VALIDATION_RETRIES("rdmakv_client_validation_retries_total", "Reads retried because a block failed its " +
        "checksum or key check, or was read too slowly to trust"),
    LOCK_RETRIES("rdmakv_client_lock_retries_total", "Inserts that found their group's insert lock taken"),
    CONTROL_MESSAGES("rdmakv_client_control_messages_total", "Control messages sent (ALLOC, FREE, STATS, BYE)"),
    CACHE_HITS("rdmakv_client_cache_hits_total", "Operations served through a cached slot address"),
    CACHE_MISSES("rdmakv_client_cache_misses_total", "Operations that found no cached slot address, or a wrong " +
        "one, and searched the key's bucket groups"),
    /** Always 0: FREEs are never dropped; kept because the YCSB binding and dashboards read it. */
    DROPPED_FREES("rdmakv_client_dropped_frees_total", "Superseded blocks not returned to a node because their " +
        "FREE would have come too late"),
    /** Round trips of GETs (ROUND_TRIPS split by operation; the metrics have them as a histogram by op). */
    GET_ROUND_TRIPS(null, null),
    PUT_ROUND_TRIPS(null, null),
    DELETE_ROUND_TRIPS(null, null),
    COMPARE_AND_SET_ROUND_TRIPS(null, null),
    REPAIRED_SLOTS("rdmakv_client_repaired_slots_total", "Damaged slots a node cleared at this client's REPAIR " +
        "(a PUT or DELETE of a key whose block was damaged)"),
    CHAIN_HELPS("rdmakv_client_chain_helps_total", "Replicated writes found stuck between a key's first backup " +
        "and its primary, and sent to the primary to finish (HELP)"),
    READ_LEASE_EXPIRED("rdmakv_client_read_lease_expired_total", "GET results thrown away because the session's " +
        "read lease on the node had run out when the reads completed (the node may have been replaced); the GET " +
        "ran again on a current map"),
    FULL_WAITS("rdmakv_client_full_waits_total", "Inserts that found their key's partition full while it was being " +
        "moved into a bigger index segment (index growth), and waited for it to open there rather than fail");

    private final String metricName;
    private final String help;

    ClientCounter(final String metricName, final String help)
    {
        this.metricName = metricName;
        this.help = help;
    }

    /** The Prometheus counter this is exported as, or null when it is only in {@code ClientStats}. */
    public String metricName()
    {
        return metricName;
    }

    public String help()
    {
        return help;
    }
}
