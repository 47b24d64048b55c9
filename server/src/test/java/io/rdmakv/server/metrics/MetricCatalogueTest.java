package io.rdmakv.server.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerMetric;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every exported metric's name, type and help, as a dashboard sees them: changing one is a deliberate
 * edit of this list (and of the metrics table in docs/operations.md), never a side effect.
 */
class MetricCatalogueTest
{
    private static final List<String> CATALOGUE = List.of(
        "# HELP rdmakv_auth_failures_total HELLOs refused for a wrong auth token",
        "# HELP rdmakv_auth_throttled_total Wrong-token HELLOs from an address past its free failures, their " +
            "refusal held back where there was room (a right token is never throttled)",
        "# HELP rdmakv_build_info The kvserver build: version, region layout version and control protocol version",
        "# HELP rdmakv_completion_errors_total Failed work completions on the control plane's queue pairs, by " +
            "ibv_wc_status",
        "# HELP rdmakv_connected_clients Client sessions (one per client thread and node) connected now",
        "# HELP rdmakv_client_oldest_epoch Lowest map epoch the connected sessions' heartbeats report as one an " +
            "operation of theirs may still run under; the node's applied epoch while none has reported",
        "# HELP rdmakv_control_errors_total Control-plane requests refused, by error: alloc_failed (data area " +
            "full, session quota or too large), free_refused (FREE entries refused, by reason in " +
            "rdmakv_space_refusals_total), malformed (an undecodable or unexpected message)",
        "# HELP rdmakv_connections_refused_total Bootstrap connections closed as soon as they were accepted " +
            "because the node held --max-connections already (handshakes and sessions)",
        "# HELP rdmakv_control_requests_total Control-plane requests served, by type (alloc, free, stats, bye, " +
            "slot_cas)",
        "# HELP rdmakv_node_assisted_writes The write path clients are told to use: 1 node-assisted (each index CAS " +
            "sent to the node as SLOT_CAS: the device has no remote atomics, or --write-path node-assisted), 0 " +
            "one-sided (clients' own RDMA CAS)",
        "# HELP rdmakv_slot_cas_total Index words compare-and-swapped for clients on the node-assisted write path " +
            "(SLOT_CAS), by outcome: swapped, lost (the word was not the expected one), refused (in a request naming " +
            "a word that is no slot or insert lock, or a lock the session may not take or give back that way: the " +
            "whole request refused)",
        "# HELP rdmakv_data_area_capacity_bytes Bytes of the data area that can hold key-value blocks: used + " +
            "free + grace period",
        "# HELP rdmakv_chain_helps_total HELP requests (a replicated write stuck between its first backup and this " +
            "primary) by outcome: helped (finished here), refused (its writer is gone: the client puts the backups " +
            "back), changed",
        "# HELP rdmakv_chain_sweeps_total Sweeps of this primary's backups before departed sessions' space is " +
            "reclaimed, by outcome: swept (every backup's index read, a gone writer's slots put back), failed (a " +
            "backup could not be swept: the space stays held, retried), abandoned (no longer the primary of a " +
            "group with backups: reclaimed without)",
        "# HELP rdmakv_chain_sweep_rollbacks_total Backup slots a sweep put back to the primary's word: a " +
            "replicated write whose writer departed between its first backup's CAS and the primary's",
        "# HELP rdmakv_damage_scans_total Pages of the damaged-slot listing served (DAMAGE_SCAN, kvctl damaged)",
        "# HELP rdmakv_data_area_free_bytes Data area bytes that can be granted now",
        "# HELP rdmakv_data_area_used_bytes Data area bytes granted to clients and not freed (blocks in use plus " +
            "clients' unused grants)",
        "# HELP rdmakv_freed_blocks_total Blocks clients freed (FREE entries accepted)",
        "# HELP rdmakv_grace_period_blocks Freed blocks and reclaimed ranges waiting out the grace period before " +
            "reuse",
        "# HELP rdmakv_grace_period_bytes Data area bytes freed or reclaimed and waiting out the grace period " +
            "before reuse",
        "# HELP rdmakv_granted_chunks_total Extents of the data area granted to clients (ALLOC) since start",
        "# HELP rdmakv_index_load_ratio Used index slots over all index slots (0..1)",
        "# HELP rdmakv_index_segment_load_max Highest used/all slots of the index segments of the partitions this " +
            "node's group owns, on its primary (the census's last pass; 0 elsewhere); at 0.75 the partition moves " +
            "into a segment twice its size",
        "# HELP rdmakv_index_slots Slots in the hash index",
        "# HELP rdmakv_index_slots_used Index slots holding a key (counted by walking the index, at most every " +
            "few seconds)",
        "# HELP rdmakv_insert_locks_released_total Insert locks a departed session held that the server released",
        "# HELP rdmakv_leases_expired_total Client sessions whose lease expired (no heartbeat within the lease " +
            "timeout): fenced, then reclaimed",
        "# HELP rdmakv_stale_insert_locks_cleared_total Insert locks holding a value that was no live session's, " +
            "cleared by the node's periodic sweep",
        "# HELP rdmakv_memory_window_events_total Memory window events: bind (a grant made writable), revoke (a " +
            "fenced session's window deallocated), failure (the device allocated no window or a queue pair " +
            "refused the bind: the ALLOC was refused)",
        "# HELP rdmakv_memory_windows_bound Memory windows bound now (one per session with a grant)",
        "# HELP rdmakv_memory_windows_enabled 1 when each grant is writable only through a memory window on its " +
            "own session's queue pair, 0 when every session writes the data area with its rkey (--memory-windows)",
        "# HELP rdmakv_node_info This node's id in the cluster map and its bootstrap address",
        "# HELP rdmakv_ready 1 once the region is registered and clients are accepted, 0 while starting, while a " +
            "listener cannot accept, or shutting down",
        "# HELP rdmakv_reclaimed_bytes_total Bytes reclaimed from departed sessions' grants that no slot referenced",
        "# HELP rdmakv_region_bytes Size of the registered region: header, index and data area",
        "# HELP rdmakv_replica_grant_events_total Windows over a replica group primary's grants on its backups and " +
            "copying nodes: bound (a client's window bound over its grant), refused (BIND_WINDOW naming a grant the " +
            "primary does not hold for that writer), check_failed (the primary could not be asked), revoked (windows " +
            "deallocated on the primary's REVOKE_GRANT), revoke_failed (on a primary: a replica did not confirm a " +
            "revocation, so the ALLOC was refused)",
        "# HELP rdmakv_sessions_closed_total Client sessions ended since start (BYE, closed connection or failed " +
            "queue pair)",
        "# HELP rdmakv_sessions_opened_total Client sessions opened since start",
        "# HELP rdmakv_slot_repairs_total REPAIR requests by outcome: repaired (a damaged slot of the key " +
            "cleared), deferred (damage not yet seen for a grace period: asked to retry), refused (not provably " +
            "the key's damaged slot)",
        "# HELP rdmakv_space_refusals_total Space requests refused, by reason: free_not_granted (inside no " +
            "granted range: never granted or freed twice), free_foreign (another session's space that is not " +
            "one dead block of it), free_live (overlaps a block a slot references), alloc_quota (the session's " +
            "quota is used)",
        "# HELP rdmakv_transport_info The RDMA transport in use and its device: name, link layer, atomic " +
            "capability, port state",
        "# HELP rdmakv_cluster_maps_refused_total Maps read from ZooKeeper that the node refused to apply, by the " +
            "rule broken: unreadable, epoch (not one step per write), geometry (not the cluster's partitions, factor " +
            "or groups), promotion (a node made a member without having been one or copying)",
        "# HELP rdmakv_cluster_epoch Epoch of the cluster map the node applied and serves in HELLO_OK (0: none)",
        "# HELP rdmakv_replica_role The node's role in the applied map: -1 in no map, 0 spare, 1 copying, 2 " +
            "backup, 3 primary",
        "# HELP rdmakv_zookeeper_connected 1 while the ZooKeeper connection is up, 0 while it is down or the node " +
            "runs without ZooKeeper",
        "# HELP rdmakv_cluster_replication_factor Replicas per group (R) in the cluster map the node applied (0: none)",
        "# HELP rdmakv_cluster_groups Replica groups in the cluster map the node applied, by state: full (R members), " +
            "degraded (1 to R-1 members: writes go on, a replica is being replaced or copied), lost (no member left)",
        "# HELP rdmakv_node_current 1 while the node can confirm it is current in its cluster and serves; 0 while " +
            "it is fenced (ZooKeeper connection down, session unconfirmed past the currency bound, not yet rejoined)",
        "# HELP rdmakv_sessions_self_fenced_total Sessions fenced because the node could not confirm it was current " +
            "in its cluster (ZooKeeper connection down, session unconfirmed past the bound, or shutting down)",
        "# HELP rdmakv_copy_passes_total Diff passes this node ran against its group's primary while copying",
        "# HELP rdmakv_copy_slots_total Index slots those passes changed (the primary's word and block copied, or " +
            "cleared)",
        "# HELP rdmakv_failovers_total Failovers in the maps this node applied: a replica group whose primary " +
            "became another member",
        "# HELP rdmakv_partitions_moving Partitions of move batches in the applied map whose source or target " +
            "replica group is this node's, by role: source, target",
        "# HELP rdmakv_move_phase_age_seconds How long the oldest move batch of the applied map has been in its " +
            "phase, as this node saw it (0: no move): a stuck move",
        "# HELP rdmakv_moves_total Move batches this node copied in as its group's primary, by outcome: finished " +
            "(opened here), aborted (abandoned before SWITCH: the copy zeroed)",
        "# HELP rdmakv_move_keys_total Keys this node's partition copies wrote into its replica group (new, changed " +
            "and redone copies)",
        "# HELP rdmakv_move_bytes_total Bytes of the blocks those copies wrote",
        "# HELP rdmakv_move_freezes_total Index segments this node froze along its chain as a moving partition's " +
            "source primary",
        "# HELP rdmakv_move_freeze_seconds_total Time those freezes took: writes to a partition wait while its " +
            "segment freezes and until it opens",
        "# HELP rdmakv_scrub_passes_total Scrub passes of this primary over its backups (every backup's index words " +
            "and the blocks they name compared with its own), by outcome: done, failed (a backup could not be " +
            "scrubbed: retried next interval)",
        "# HELP rdmakv_scrub_repairs_total Differences between a backup and this primary the scrub mended, by kind: " +
            "word (a backup's slot put back to the primary's word), block (a backup's copy of a block written over " +
            "with the primary's), primary_block (the primary's own damaged copy rewritten from a backup's whole copy)",
        "# HELP rdmakv_scrub_unmended_total Differences the scrub found and left, by reason: writer (a backup's word " +
            "names a block of a writer still live on the primary: left to it), damaged_here (the primary's own copy " +
            "of the block is damaged and no backup holds it whole)",
        "# HELP rdmakv_sessions_fenced_for_primary_total Sessions fenced at their group's primary's request, because " +
            "their writer's session on the primary ended (before the primary swept this node for that writer's words)",
        "# HELP rdmakv_sessions_fenced_by_epoch_total Client sessions fenced because a cluster map of a newer " +
            "epoch than the one they were opened under was applied",
        "# TYPE rdmakv_cluster_epoch gauge",
        "# TYPE rdmakv_cluster_maps_refused_total counter",
        "# TYPE rdmakv_replica_role gauge",
        "# TYPE rdmakv_zookeeper_connected gauge",
        "# TYPE rdmakv_node_current gauge",
        "# TYPE rdmakv_cluster_replication_factor gauge",
        "# TYPE rdmakv_cluster_groups gauge",
        "# TYPE rdmakv_sessions_self_fenced_total counter",
        "# TYPE rdmakv_copy_passes_total counter",
        "# TYPE rdmakv_copy_slots_total counter",
        "# TYPE rdmakv_failovers_total counter",
        "# TYPE rdmakv_partitions_moving gauge",
        "# TYPE rdmakv_move_phase_age_seconds gauge",
        "# TYPE rdmakv_moves_total counter",
        "# TYPE rdmakv_move_keys_total counter",
        "# TYPE rdmakv_move_bytes_total counter",
        "# TYPE rdmakv_move_freezes_total counter",
        "# TYPE rdmakv_move_freeze_seconds_total counter",
        "# TYPE rdmakv_scrub_passes_total counter",
        "# TYPE rdmakv_scrub_repairs_total counter",
        "# TYPE rdmakv_scrub_unmended_total counter",
        "# TYPE rdmakv_sessions_fenced_for_primary_total counter",
        "# TYPE rdmakv_sessions_fenced_by_epoch_total counter",
        "# TYPE rdmakv_auth_failures_total counter",
        "# TYPE rdmakv_auth_throttled_total counter",
        "# TYPE rdmakv_build_info gauge",
        "# TYPE rdmakv_completion_errors_total counter",
        "# TYPE rdmakv_connected_clients gauge",
        "# TYPE rdmakv_client_oldest_epoch gauge",
        "# TYPE rdmakv_control_errors_total counter",
        "# TYPE rdmakv_connections_refused_total counter",
        "# TYPE rdmakv_control_requests_total counter",
        "# TYPE rdmakv_data_area_capacity_bytes gauge",
        "# TYPE rdmakv_chain_helps_total counter",
        "# TYPE rdmakv_chain_sweeps_total counter",
        "# TYPE rdmakv_chain_sweep_rollbacks_total counter",
        "# TYPE rdmakv_damage_scans_total counter",
        "# TYPE rdmakv_data_area_free_bytes gauge",
        "# TYPE rdmakv_data_area_used_bytes gauge",
        "# TYPE rdmakv_freed_blocks_total counter",
        "# TYPE rdmakv_grace_period_blocks gauge",
        "# TYPE rdmakv_grace_period_bytes gauge",
        "# TYPE rdmakv_granted_chunks_total counter",
        "# TYPE rdmakv_index_load_ratio gauge",
        "# TYPE rdmakv_index_segment_load_max gauge",
        "# TYPE rdmakv_index_slots gauge",
        "# TYPE rdmakv_index_slots_used gauge",
        "# TYPE rdmakv_insert_locks_released_total counter",
        "# TYPE rdmakv_leases_expired_total counter",
        "# TYPE rdmakv_stale_insert_locks_cleared_total counter",
        "# TYPE rdmakv_memory_window_events_total counter",
        "# TYPE rdmakv_memory_windows_bound gauge",
        "# TYPE rdmakv_node_assisted_writes gauge",
        "# TYPE rdmakv_slot_cas_total counter",
        "# TYPE rdmakv_memory_windows_enabled gauge",
        "# TYPE rdmakv_node_info gauge",
        "# TYPE rdmakv_ready gauge",
        "# TYPE rdmakv_reclaimed_bytes_total counter",
        "# TYPE rdmakv_region_bytes gauge",
        "# TYPE rdmakv_replica_grant_events_total counter",
        "# TYPE rdmakv_sessions_closed_total counter",
        "# TYPE rdmakv_sessions_opened_total counter",
        "# TYPE rdmakv_slot_repairs_total counter",
        "# TYPE rdmakv_space_refusals_total counter",
        "# TYPE rdmakv_transport_info gauge");

    @Test
    void namesTypesAndHelpAreExactlyTheCatalogue() throws Exception
    {
        final String text = scrape();
        final TreeSet<String> found = new TreeSet<>();
        Arrays.stream(text.split("\n")).filter(l -> l.startsWith("# HELP ") || l.startsWith("# TYPE "))
            .forEach(found::add);
        assertEquals(String.join("\n", new TreeSet<>(CATALOGUE)), String.join("\n", found));
    }

    @Test
    void everyExportedCounterIsOneSampleWithItsLabel() throws Exception
    {
        final Scrape s = Scrape.parse(scrape());
        for (final ServerCounter counter : ServerCounter.values())
        {
            final ServerMetric metric = counter.metric();
            if (metric == null)
            {
                continue;
            }
            final String sample = metric.metricName() + (metric.labelName() == null ? "" :
                "{" + metric.labelName() + "=\"" + counter.labelValue() + "\"}");
            assertTrue(s.samples().containsKey(sample), sample + " in\n" + s.text());
        }
        assertEquals(5, s.samples().keySet().stream().filter(k -> k.startsWith("rdmakv_control_requests_total{"))
            .count());
        assertEquals(3, s.samples().keySet().stream().filter(k -> k.startsWith("rdmakv_control_errors_total{"))
            .count());
        assertEquals(3, s.samples().keySet().stream().filter(k -> k.startsWith("rdmakv_slot_repairs_total{"))
            .count());
    }

    private static String scrape() throws IOException, InterruptedException
    {
        try (KvServer server = KvServer.start(ServerConfig.local(16L << 20)))
        {
            final Readiness readiness = new Readiness();
            final PrometheusRegistry registry = new PrometheusRegistry();
            ServerMetrics.register(registry, server, readiness, 0);
            try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, registry, readiness))
            {
                return Scrape.get("http://127.0.0.1:" + endpoint.port() + "/metrics").body();
            }
        }
    }
}
