package io.rdmakv.server.control;

/**
 * What the control agent counts, one constant per value (Aeron's {@code SystemCounterDescriptor} style):
 * the ordinal is the value's index in {@link ServerCounters}, and an exported value names its metric
 * family and, in a family of several, its label value. Adding a counter is adding a constant here.
 */
public enum ServerCounter
{
    SESSIONS_OPENED(ServerMetric.SESSIONS_OPENED),
    SESSIONS_CLOSED(ServerMetric.SESSIONS_CLOSED),
    ALLOC_REQUESTS(ServerMetric.CONTROL_REQUESTS, "alloc"),
    FREE_REQUESTS(ServerMetric.CONTROL_REQUESTS, "free"),
    STATS_REQUESTS(ServerMetric.CONTROL_REQUESTS, "stats"),
    BYE_REQUESTS(ServerMetric.CONTROL_REQUESTS, "bye"),
    ALLOC_FAILURES(ServerMetric.CONTROL_ERRORS, "alloc_failed"),
    REFUSED_FREES(ServerMetric.CONTROL_ERRORS, "free_refused"),
    MALFORMED_MESSAGES(ServerMetric.CONTROL_ERRORS, "malformed"),
    /** FREE entries refused because they lie inside no one granted range (never granted, freed twice). */
    FREES_REFUSED_NOT_GRANTED(ServerMetric.SPACE_REFUSALS, "free_not_granted"),
    /** FREE entries refused because they name another session's space that is not one dead block of it. */
    FREES_REFUSED_FOREIGN(ServerMetric.SPACE_REFUSALS, "free_foreign"),
    /** FREE entries refused because a slot references a block they overlap. */
    FREES_REFUSED_LIVE(ServerMetric.SPACE_REFUSALS, "free_live"),
    /** ALLOCs refused because the session would hold more than its quota. */
    ALLOCS_REFUSED_QUOTA(ServerMetric.SPACE_REFUSALS, "alloc_quota"),
    GRANTED_EXTENTS(ServerMetric.GRANTED_CHUNKS),
    /** A gauge the agent publishes after every change of the allocator. */
    FREE_BYTES(ServerMetric.DATA_AREA_FREE_BYTES),
    /** A gauge the agent publishes after every change of the allocator. */
    GRACE_BYTES(ServerMetric.GRACE_PERIOD_BYTES),
    /** A gauge the agent publishes after every change of the allocator. */
    GRACE_RANGES(ServerMetric.GRACE_PERIOD_BLOCKS),
    FREED_BLOCKS(ServerMetric.FREED_BLOCKS),
    RECLAIMED_BYTES(ServerMetric.RECLAIMED_BYTES),
    LOCKS_RELEASED(ServerMetric.INSERT_LOCKS_RELEASED),
    /** REPAIRs that cleared a damaged slot. */
    REPAIRED_SLOTS(ServerMetric.SLOT_REPAIRS, "repaired"),
    /** REPAIRs answered RETRY: damage not yet seen for a grace period. */
    DEFERRED_REPAIRS(ServerMetric.SLOT_REPAIRS, "deferred"),
    /** REPAIRs refused: not provably the key's damaged slot. */
    REFUSED_REPAIRS(ServerMetric.SLOT_REPAIRS, "refused"),
    DAMAGE_SCANS(ServerMetric.DAMAGE_SCANS),
    /** HELPs that finished a stuck replicated write on this primary. */
    CHAIN_HELPED(ServerMetric.CHAIN_HELPS, "helped"),
    /** HELPs refused: the word's block is no live session's whole block of the key. */
    CHAIN_HELPS_REFUSED(ServerMetric.CHAIN_HELPS, "refused"),
    /** HELPs that found the primary's slot holding neither word. */
    CHAIN_HELPS_CHANGED(ServerMetric.CHAIN_HELPS, "changed"),
    /** Sweeps of a primary's backups before it reclaimed departed sessions' space (each may cover many batches). */
    CHAIN_SWEEPS(ServerMetric.CHAIN_SWEEPS, "swept"),
    /** Sweep attempts that failed (a backup unreachable, refused or serving another epoch): retried. */
    CHAIN_SWEEP_FAILURES(ServerMetric.CHAIN_SWEEPS, "failed"),
    /** Sweeps given up because the node was no longer the primary of a group with backups: reclaimed without. */
    CHAIN_SWEEPS_ABANDONED(ServerMetric.CHAIN_SWEEPS, "abandoned"),
    /** Backup slots a sweep put back (a gone writer's word replaced by the primary's). */
    CHAIN_SWEEP_ROLLBACKS(ServerMetric.CHAIN_SWEEP_ROLLBACKS),
    /** Scrub passes over every backup. */
    SCRUB_PASSES(ServerMetric.SCRUB_PASSES, "done"),
    /** Scrub passes that could not scrub every backup. */
    SCRUB_FAILURES(ServerMetric.SCRUB_PASSES, "failed"),
    /** Backup slots the scrub put back to this primary's word. */
    SCRUB_WORDS_REPAIRED(ServerMetric.SCRUB_REPAIRS, "word"),
    /** Backup blocks the scrub wrote over with this primary's. */
    SCRUB_BLOCKS_REPAIRED(ServerMetric.SCRUB_REPAIRS, "block"),
    /** This primary's damaged blocks the scrub rewrote from a backup's whole copy. */
    SCRUB_HEALED_HERE(ServerMetric.SCRUB_REPAIRS, "primary_block"),
    /** Differences left to a writer still live here. */
    SCRUB_LEFT_TO_WRITERS(ServerMetric.SCRUB_UNMENDED, "writer"),
    /** Differences left because this primary's own block is damaged. */
    SCRUB_DAMAGED_HERE(ServerMetric.SCRUB_UNMENDED, "damaged_here"),
    /** Sessions torn down because no heartbeat arrived within the lease timeout. */
    LEASES_EXPIRED(ServerMetric.LEASES_EXPIRED),
    /** Sessions fenced because a cluster map of a newer epoch than theirs was applied. */
    SESSIONS_FENCED_BY_EPOCH(ServerMetric.SESSIONS_FENCED_BY_EPOCH),
    /** Sessions fenced because the node could not confirm it was current (or was shutting down). */
    SESSIONS_SELF_FENCED(ServerMetric.SESSIONS_SELF_FENCED),
    /** Sessions fenced because their writer's session on the group's primary ended (FENCE_WRITERS). */
    SESSIONS_FENCED_FOR_PRIMARY(ServerMetric.SESSIONS_FENCED_FOR_PRIMARY),
    /** Insert locks holding a value that was no live session's, cleared by the sweep. */
    STALE_LOCKS_CLEARED(ServerMetric.STALE_INSERT_LOCKS_CLEARED),
    /** A gauge: 1 when grants are written through memory windows, 0 when the data area's rkey writes. */
    MEMORY_WINDOWS_ENABLED(ServerMetric.MEMORY_WINDOWS_ENABLED),
    /** A gauge: memory windows bound now (one per session with a grant). */
    MEMORY_WINDOWS_BOUND(ServerMetric.MEMORY_WINDOWS_BOUND),
    /** Windows bound over a new grant. */
    MEMORY_WINDOW_BINDS(ServerMetric.MEMORY_WINDOW_EVENTS, "bind"),
    /** Windows deallocated because their session was fenced. */
    MEMORY_WINDOW_REVOCATIONS(ServerMetric.MEMORY_WINDOW_EVENTS, "revoke"),
    /** Windows the device would not allocate or a queue pair would not bind (the ALLOC was refused). */
    MEMORY_WINDOW_FAILURES(ServerMetric.MEMORY_WINDOW_EVENTS, "failure"),
    /** A backup's or copying node's window bound over its primary's grant (BIND_WINDOW). */
    REPLICA_WINDOWS_BOUND(ServerMetric.REPLICA_GRANT_EVENTS, "bound"),
    /** BIND_WINDOW naming a grant the primary does not hold for that writer. */
    REPLICA_WINDOWS_REFUSED(ServerMetric.REPLICA_GRANT_EVENTS, "refused"),
    /** BIND_WINDOW that could not be checked with the primary. */
    REPLICA_GRANT_CHECKS_FAILED(ServerMetric.REPLICA_GRANT_EVENTS, "check_failed"),
    /** Windows deallocated on REVOKE_GRANT. */
    REPLICA_WINDOWS_REVOKED(ServerMetric.REPLICA_GRANT_EVENTS, "revoked"),
    /** On a primary: revocations a replica did not confirm (the ALLOC was refused). */
    REPLICA_REVOKES_FAILED(ServerMetric.REPLICA_GRANT_EVENTS, "revoke_failed"),
    /** A gauge: 1 when clients write node-assisted (SLOT_CAS), 0 when they CAS the index themselves. */
    NODE_ASSISTED_WRITES(ServerMetric.NODE_ASSISTED_WRITES),
    /** SLOT_CAS requests served (each one or more words). */
    SLOT_CAS_REQUESTS(ServerMetric.CONTROL_REQUESTS, "slot_cas"),
    /** SLOT_CAS words that swapped. */
    SLOT_CAS_SWAPPED(ServerMetric.SLOT_CAS, "swapped"),
    /** SLOT_CAS words whose expected word was not there (the client lost a race, as a one-sided CAS does). */
    SLOT_CAS_LOST(ServerMetric.SLOT_CAS, "lost"),
    /** SLOT_CAS words in requests refused whole (ERROR BAD_SLOT_CAS, or UNEXPECTED_MESSAGE on a one-sided node). */
    SLOT_CAS_REFUSED(ServerMetric.SLOT_CAS, "refused"),
    /** Failed work completions, all statuses (exported by status: {@code rdmakv_completion_errors_total}). */
    COMPLETION_ERRORS(null),
    /** FREE entries of a block in another session's latest extent, held until it moves on. Not exported. */
    FREES_DEFERRED(null),
    /** Units (64-byte headers) FREE checks read: the control thread's FREE work. Not exported. */
    FREE_UNITS_EXAMINED(null),
    /** Complete passes over the index counting used slots for STATS. Not exported. */
    INDEX_CENSUS_PASSES(null),
    /** Index groups walked for departed sessions, all batches together (a whole walk: the group count). Not exported. */
    DEPARTURE_GROUPS_WALKED(null),
    /** Unexpected exceptions the control agent caught and survived (each is logged). Not exported. */
    AGENT_ERRORS(null);

    /** How many values there are: the first index after them is free for the per-status counts. */
    public static final int COUNT = values().length;

    private final ServerMetric metric;
    private final String labelValue;

    ServerCounter(final ServerMetric metric)
    {
        this(metric, null);
    }

    ServerCounter(final ServerMetric metric, final String labelValue)
    {
        this.metric = metric;
        this.labelValue = labelValue;
    }

    /** The family this value is exported in, or null when it is not exported on its own. */
    public ServerMetric metric()
    {
        return metric;
    }

    /** The value of the family's label for this counter, or null in a family of one. */
    public String labelValue()
    {
        return labelValue;
    }
}
