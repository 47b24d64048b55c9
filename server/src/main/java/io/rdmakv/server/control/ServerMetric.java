package io.rdmakv.server.control;

/**
 * The metric families the node's {@link ServerCounter}s are exported as: name, type, help and, for a
 * family of several counters, the label that tells them apart. Dashboards depend on these names; change
 * one only with the README's metrics table.
 */
public enum ServerMetric
{
    SESSIONS_OPENED("rdmakv_sessions_opened_total", Type.COUNTER,
        "Client sessions opened since start"),
    SESSIONS_CLOSED("rdmakv_sessions_closed_total", Type.COUNTER,
        "Client sessions ended since start (BYE, closed connection or failed queue pair)"),
    CONTROL_REQUESTS("rdmakv_control_requests_total", Type.COUNTER,
        "Control-plane requests served, by type (alloc, free, stats, bye, slot_cas)", "type"),
    CONTROL_ERRORS("rdmakv_control_errors_total", Type.COUNTER,
        "Control-plane requests refused, by error: alloc_failed (data area full, session quota or too " +
        "large), free_refused (FREE entries refused, by reason in rdmakv_space_refusals_total), malformed (an " +
        "undecodable or unexpected message)", "error"),
    SPACE_REFUSALS("rdmakv_space_refusals_total", Type.COUNTER,
        "Space requests refused, by reason: free_not_granted (inside no granted range: never granted or freed " +
        "twice), free_foreign (another session's space that is not one dead block of it), free_live (overlaps " +
        "a block a slot references), alloc_quota (the session's quota is used)", "reason"),
    MEMORY_WINDOWS_ENABLED("rdmakv_memory_windows_enabled", Type.GAUGE,
        "1 when each grant is writable only through a memory window on its own session's queue pair, 0 when " +
        "every session writes the data area with its rkey (--memory-windows)"),
    MEMORY_WINDOWS_BOUND("rdmakv_memory_windows_bound", Type.GAUGE,
        "Memory windows bound now (one per session with a grant)"),
    MEMORY_WINDOW_EVENTS("rdmakv_memory_window_events_total", Type.COUNTER,
        "Memory window events: bind (a grant made writable), revoke (a fenced session's window deallocated), " +
        "failure (the device allocated no window or a queue pair refused the bind: the ALLOC was refused)", "event"),
    REPLICA_GRANT_EVENTS("rdmakv_replica_grant_events_total", Type.COUNTER,
        "Windows over a replica group primary's grants on its backups and copying nodes: bound (a client's window " +
        "bound over its grant), refused (BIND_WINDOW naming a grant the primary does not hold for that writer), " +
        "check_failed (the primary could not be asked), revoked (windows deallocated on the primary's REVOKE_GRANT), " +
        "revoke_failed (on a primary: a replica did not confirm a revocation, so the ALLOC was refused)", "event"),
    GRANTED_CHUNKS("rdmakv_granted_chunks_total", Type.COUNTER,
        "Extents of the data area granted to clients (ALLOC) since start"),
    DATA_AREA_FREE_BYTES("rdmakv_data_area_free_bytes", Type.GAUGE,
        "Data area bytes that can be granted now"),
    GRACE_PERIOD_BYTES("rdmakv_grace_period_bytes", Type.GAUGE,
        "Data area bytes freed or reclaimed and waiting out the grace period before reuse"),
    GRACE_PERIOD_BLOCKS("rdmakv_grace_period_blocks", Type.GAUGE,
        "Freed blocks and reclaimed ranges waiting out the grace period before reuse"),
    FREED_BLOCKS("rdmakv_freed_blocks_total", Type.COUNTER,
        "Blocks clients freed (FREE entries accepted)"),
    RECLAIMED_BYTES("rdmakv_reclaimed_bytes_total", Type.COUNTER,
        "Bytes reclaimed from departed sessions' grants that no slot referenced"),
    INSERT_LOCKS_RELEASED("rdmakv_insert_locks_released_total", Type.COUNTER,
        "Insert locks a departed session held that the server released"),
    SLOT_REPAIRS("rdmakv_slot_repairs_total", Type.COUNTER,
        "REPAIR requests by outcome: repaired (a damaged slot of the key cleared), deferred (damage not yet " +
        "seen for a grace period: asked to retry), refused (not provably the key's damaged slot)", "outcome"),
    CHAIN_HELPS("rdmakv_chain_helps_total", Type.COUNTER,
        "HELP requests (a replicated write stuck between its first backup and this primary) by outcome: helped " +
        "(finished here), refused (its writer is gone: the client puts the backups back), changed", "outcome"),
    CHAIN_SWEEPS("rdmakv_chain_sweeps_total", Type.COUNTER,
        "Sweeps of this primary's backups before departed sessions' space is reclaimed, by outcome: swept (every " +
        "backup's index read, a gone writer's slots put back), failed (a backup could not be swept: the space " +
        "stays held, retried), abandoned (no longer the primary of a group with backups: reclaimed without)",
        "outcome"),
    CHAIN_SWEEP_ROLLBACKS("rdmakv_chain_sweep_rollbacks_total", Type.COUNTER,
        "Backup slots a sweep put back to the primary's word: a replicated write whose writer departed between " +
        "its first backup's CAS and the primary's"),
    DAMAGE_SCANS("rdmakv_damage_scans_total", Type.COUNTER,
        "Pages of the damaged-slot listing served (DAMAGE_SCAN, kvctl damaged)"),
    LEASES_EXPIRED("rdmakv_leases_expired_total", Type.COUNTER,
        "Client sessions whose lease expired (no heartbeat within the lease timeout): fenced, then reclaimed"),
    SESSIONS_FENCED_BY_EPOCH("rdmakv_sessions_fenced_by_epoch_total", Type.COUNTER,
        "Client sessions fenced because a cluster map of a newer epoch than the one they were opened under was " +
        "applied"),
    SESSIONS_SELF_FENCED("rdmakv_sessions_self_fenced_total", Type.COUNTER,
        "Sessions fenced because the node could not confirm it was current in its cluster (ZooKeeper connection " +
        "down, session unconfirmed past the bound, or shutting down)"),
    SCRUB_PASSES("rdmakv_scrub_passes_total", Type.COUNTER,
        "Scrub passes of this primary over its backups (every backup's index words and the blocks they name " +
        "compared with its own), by outcome: done, failed (a backup could not be scrubbed: retried next interval)",
        "outcome"),
    SCRUB_REPAIRS("rdmakv_scrub_repairs_total", Type.COUNTER,
        "Differences between a backup and this primary the scrub mended, by kind: word (a backup's slot put back " +
        "to the primary's word), block (a backup's copy of a block written over with the primary's), " +
        "primary_block (the primary's own damaged copy rewritten from a backup's whole copy)", "kind"),
    SCRUB_UNMENDED("rdmakv_scrub_unmended_total", Type.COUNTER,
        "Differences the scrub found and left, by reason: writer (a backup's word names a block of a writer still " +
        "live on the primary: left to it), damaged_here (the primary's own copy of the block is damaged and no " +
        "backup holds it whole)",
        "reason"),
    SESSIONS_FENCED_FOR_PRIMARY("rdmakv_sessions_fenced_for_primary_total", Type.COUNTER,
        "Sessions fenced at their group's primary's request, because their writer's session on the primary ended " +
        "(before the primary swept this node for that writer's words)"),
    STALE_INSERT_LOCKS_CLEARED("rdmakv_stale_insert_locks_cleared_total", Type.COUNTER,
        "Insert locks holding a value that was no live session's, cleared by the node's periodic sweep"),
    NODE_ASSISTED_WRITES("rdmakv_node_assisted_writes", Type.GAUGE,
        "The write path clients are told to use: 1 node-assisted (each index CAS sent to the node as SLOT_CAS: the " +
        "device has no remote atomics, or --write-path node-assisted), 0 one-sided (clients' own RDMA CAS)"),
    SLOT_CAS("rdmakv_slot_cas_total", Type.COUNTER,
        "Index words compare-and-swapped for clients on the node-assisted write path (SLOT_CAS), by outcome: " +
        "swapped, lost (the word was not the expected one), refused (in a request naming a word that is no slot " +
        "or insert lock, or a lock the session may not take or give back that way: the whole request refused)",
        "outcome");

    /** How Prometheus reads the family: a counter only grows, a gauge goes up and down. */
    public enum Type
    {
        COUNTER,
        GAUGE
    }

    private final String metricName;
    private final Type type;
    private final String help;
    private final String labelName;

    ServerMetric(final String metricName, final Type type, final String help)
    {
        this(metricName, type, help, null);
    }

    ServerMetric(final String metricName, final Type type, final String help, final String labelName)
    {
        this.metricName = metricName;
        this.type = type;
        this.help = help;
        this.labelName = labelName;
    }

    /** The exported name, e.g. {@code rdmakv_control_requests_total}. */
    public String metricName()
    {
        return metricName;
    }

    public Type type()
    {
        return type;
    }

    public String help()
    {
        return help;
    }

    /** The label that tells the family's counters apart, or null for a family of one counter. */
    public String labelName()
    {
        return labelName;
    }
}
