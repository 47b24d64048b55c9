package io.rdmakv.server.metrics;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.ReplicaRole;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.server.control.ServerMetric;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.WcStatus;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A node's metrics in a Prometheus registry: build and transport, clients, control-plane requests and
 * errors, space (granted chunks, data area in use and free, grace period, reclaim), index load and
 * completion errors by status. Every value is a callback that reads the node's counters at scrape time.
 * The control agent's counters are exported as their {@link ServerCounter} constants say; the rest
 * (identity, derived space figures, index load) is written out here. Names are listed in the README
 * (Operations, Metrics).
 */
public final class ServerMetrics
{
    /** How old the used-slot count may be before a scrape walks the index again. */
    public static final long DEFAULT_INDEX_SCAN_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final String[] NO_LABELS = new String[0];

    private final PrometheusRegistry registry;
    private final List<Collector> collectors = new ArrayList<>();
    private final IndexLoad indexLoad;

    private ServerMetrics(final PrometheusRegistry registry, final MeteredNode server, final Readiness readiness,
        final long indexScanMaxAgeNanos, final ClusterView cluster)
    {
        this.registry = registry;
        this.indexLoad = new IndexLoad(server::usedSlots, System::nanoTime, indexScanMaxAgeNanos);
        identity(server);
        state(server, readiness);
        counters(server.counters());
        space(server);
        index(server);
        completionErrors(server.counters());
        cluster(cluster);
    }

    /** Registers the node's metrics in {@code registry}. */
    public static ServerMetrics register(final PrometheusRegistry registry, final MeteredNode server,
        final Readiness readiness, final long indexScanMaxAgeNanos)
    {
        final ClusterMap map = server.clusterMap();
        return register(registry, server, readiness, indexScanMaxAgeNanos, ClusterView.fixed(
            map == null ? 0 : map.epoch(), ReplicaRole.of(map, server.config().nodeId())));
    }

    /** Registers the node's metrics, its place in the cluster as {@code cluster} says (a ZooKeeper node's role). */
    public static ServerMetrics register(final PrometheusRegistry registry, final MeteredNode server,
        final Readiness readiness, final long indexScanMaxAgeNanos, final ClusterView cluster)
    {
        return new ServerMetrics(registry, server, readiness, indexScanMaxAgeNanos, cluster);
    }

    /** The cached index walk behind {@code rdmakv_index_slots_used} (tests). */
    public IndexLoad indexLoad()
    {
        return indexLoad;
    }

    /** Removes every metric this registered. */
    public void unregister()
    {
        for (final Collector c : collectors)
        {
            registry.unregister(c);
        }
        collectors.clear();
    }

    private <C extends Collector> C add(final C collector)
    {
        registry.register(collector);
        collectors.add(collector);
        return collector;
    }

    private void identity(final MeteredNode server)
    {
        final Info build = add(Info.builder().name("rdmakv_build_info")
            .help("The kvserver build: version, region layout version and control protocol version")
            .labelNames("version", "layout_version", "protocol_version").build());
        build.setLabelValues(BuildInfo.VERSION, String.valueOf(BuildInfo.LAYOUT_VERSION),
            String.valueOf(BuildInfo.PROTOCOL_VERSION));
        final DeviceAttributes device = server.deviceAttributes();
        final Info transport = add(Info.builder().name("rdmakv_transport_info")
            .help("The RDMA transport in use and its device: name, link layer, atomic capability, port state")
            .labelNames("transport", "device", "link_layer", "atomics", "port_state").build());
        transport.setLabelValues(server.transport(), server.deviceName(), device.linkLayer(),
            device.atomicCapability(), device.portState());
        final Info node = add(Info.builder().name("rdmakv_node_info")
            .help("This node's id in the cluster map and its bootstrap address")
            .labelNames("node_id", "listen").build());
        node.setLabelValues(String.valueOf(server.config().nodeId()),
            server.config().listenHost() + ":" + server.port());
    }

    private void state(final MeteredNode server, final Readiness readiness)
    {
        add(GaugeWithCallback.builder().name("rdmakv_ready")
            .help("1 once the region is registered and clients are accepted, 0 while starting, while a listener " +
                "cannot accept, or shutting down")
            .callback(cb -> cb.call(readiness.isReady() ? 1 : 0)).build());
        add(GaugeWithCallback.builder().name("rdmakv_connected_clients")
            .help("Client sessions (one per client thread and node) connected now")
            .callback(cb -> cb.call(server.sessionCount())).build());
        add(GaugeWithCallback.builder().name("rdmakv_client_oldest_epoch")
            .help("Lowest map epoch the connected sessions' heartbeats report as one an operation of theirs may " +
                "still run under; the node's applied epoch while none has reported")
            .callback(cb -> cb.call(server.oldestClientEpoch())).build());
        add(CounterWithCallback.builder().name("rdmakv_connections_refused_total")
            .help("Bootstrap connections closed as soon as they were accepted because the node held " +
                "--max-connections already (handshakes and sessions)")
            .callback(cb -> cb.call(server.connectionLimit().refused())).build());
        add(CounterWithCallback.builder().name("rdmakv_auth_failures_total")
            .help("HELLOs refused for a wrong auth token")
            .callback(cb -> cb.call(server.authThrottle().failures())).build());
        add(CounterWithCallback.builder().name("rdmakv_auth_throttled_total")
            .help("Wrong-token HELLOs from an address past its free failures, their refusal held back where " +
                "there was room (a right token is never throttled)")
            .callback(cb -> cb.call(server.authThrottle().throttled())).build());
    }

    /** One metric per {@link ServerMetric} family, reading its {@link ServerCounter}s in their order. */
    private void counters(final ServerCounters c)
    {
        final Map<ServerMetric, List<ServerCounter>> families = new EnumMap<>(ServerMetric.class);
        for (final ServerCounter counter : ServerCounter.values())
        {
            if (counter.metric() != null)
            {
                families.computeIfAbsent(counter.metric(), m -> new ArrayList<>()).add(counter);
            }
        }
        families.forEach((family, members) -> add(family, members, c));
    }

    private void add(final ServerMetric family, final List<ServerCounter> members, final ServerCounters c)
    {
        final ServerCounter[] counters = members.toArray(new ServerCounter[0]);
        final String[][] labelValues = new String[counters.length][];
        for (int i = 0; i < counters.length; i++)
        {
            labelValues[i] = counters[i].labelValue() == null ? NO_LABELS : new String[] {counters[i].labelValue()};
        }
        final String[] labelNames = family.labelName() == null ? NO_LABELS : new String[] {family.labelName()};
        switch (family.type())
        {
            case COUNTER -> add(CounterWithCallback.builder().name(family.metricName()).help(family.help())
                .labelNames(labelNames)
                .callback(cb ->
                {
                    for (int i = 0; i < counters.length; i++)
                    {
                        cb.call(c.get(counters[i]), labelValues[i]);
                    }
                }).build());
            case GAUGE -> add(GaugeWithCallback.builder().name(family.metricName()).help(family.help())
                .labelNames(labelNames)
                .callback(cb ->
                {
                    for (int i = 0; i < counters.length; i++)
                    {
                        cb.call(c.get(counters[i]), labelValues[i]);
                    }
                }).build());
        }
    }

    private void space(final MeteredNode server)
    {
        // the first block-aligned unit is never granted (offset 0 means "no block" in a slot word)
        final long capacity = server.geometry().dataLength() - KvBlockDescriptor.ALIGNMENT;
        add(GaugeWithCallback.builder().name("rdmakv_region_bytes")
            .help("Size of the registered region: header, index and data area")
            .callback(cb -> cb.call(server.geometry().regionLength())).build());
        add(GaugeWithCallback.builder().name("rdmakv_data_area_capacity_bytes")
            .help("Bytes of the data area that can hold key-value blocks: used + free + grace period")
            .callback(cb -> cb.call(capacity)).build());
        add(GaugeWithCallback.builder().name("rdmakv_data_area_used_bytes")
            .help("Data area bytes granted to clients and not freed (blocks in use plus clients' unused grants)")
            .callback(cb -> cb.call(capacity - server.freeBytes() - server.graceBytes())).build());
    }

    private void index(final MeteredNode server)
    {
        final long slots = server.geometry().slotCount();
        add(GaugeWithCallback.builder().name("rdmakv_index_slots")
            .help("Slots in the hash index")
            .callback(cb -> cb.call(slots)).build());
        add(GaugeWithCallback.builder().name("rdmakv_index_slots_used")
            .help("Index slots holding a key (counted by walking the index, at most every few seconds)")
            .callback(cb -> cb.call(indexLoad.usedSlots())).build());
        add(GaugeWithCallback.builder().name("rdmakv_index_load_ratio")
            .help("Used index slots over all index slots (0..1)")
            .callback(cb -> cb.call(slots == 0 ? 0 : (double)indexLoad.usedSlots() / slots)).build());
        add(GaugeWithCallback.builder().name("rdmakv_index_segment_load_max")
            .help("Highest used/all slots of the index segments of the partitions this node's group owns, on its " +
                "primary (the census's last pass; 0 elsewhere); at 0.75 the partition moves into a segment twice " +
                "its size")
            .callback(cb -> cb.call(server.segmentLoads().maxLoad())).build());
    }

    private void cluster(final ClusterView cluster)
    {
        add(GaugeWithCallback.builder().name("rdmakv_cluster_epoch")
            .help("Epoch of the cluster map the node applied and serves in HELLO_OK (0: none)")
            .callback(cb -> cb.call(cluster.epoch())).build());
        add(GaugeWithCallback.builder().name("rdmakv_replica_role")
            .help("The node's role in the applied map: -1 in no map, 0 spare, 1 copying, 2 backup, 3 primary")
            .callback(cb -> cb.call(cluster.role().value())).build());
        add(GaugeWithCallback.builder().name("rdmakv_zookeeper_connected")
            .help("1 while the ZooKeeper connection is up, 0 while it is down or the node runs without ZooKeeper")
            .callback(cb -> cb.call(cluster.zooKeeperConnected() ? 1 : 0)).build());
        add(GaugeWithCallback.builder().name("rdmakv_node_current")
            .help("1 while the node can confirm it is current in its cluster and serves; 0 while it is fenced " +
                "(ZooKeeper connection down, session unconfirmed past the currency bound, not yet rejoined)")
            .callback(cb -> cb.call(cluster.current() ? 1 : 0)).build());
        add(GaugeWithCallback.builder().name("rdmakv_cluster_replication_factor")
            .help("Replicas per group (R) in the cluster map the node applied (0: none)")
            .callback(cb ->
            {
                final io.rdmakv.common.cluster.ClusterMap map = cluster.map();
                cb.call(map == null ? 0 : map.replicationFactor());
            }).build());
        add(GaugeWithCallback.builder().name("rdmakv_cluster_groups")
            .help("Replica groups in the cluster map the node applied, by state: full (R members), degraded (1 to " +
                "R-1 members: writes go on, a replica is being replaced or copied), lost (no member left)")
            .labelNames("state")
            .callback(cb ->
            {
                final io.rdmakv.common.cluster.ClusterMap map = cluster.map();
                int full = 0;
                int degraded = 0;
                int lost = 0;
                if (map != null && !map.isSimple())
                {
                    for (final io.rdmakv.common.cluster.ReplicaGroup g : map.groups())
                    {
                        final int members = g.members().length;
                        if (members == 0)
                        {
                            lost++;
                        }
                        else if (members < map.replicationFactor())
                        {
                            degraded++;
                        }
                        else
                        {
                            full++;
                        }
                    }
                }
                cb.call(full, "full");
                cb.call(degraded, "degraded");
                cb.call(lost, "lost");
            }).build());
        add(CounterWithCallback.builder().name("rdmakv_copy_passes_total")
            .help("Diff passes this node ran against its group's primary while copying")
            .callback(cb -> cb.call(cluster.copyPasses())).build());
        add(CounterWithCallback.builder().name("rdmakv_copy_slots_total")
            .help("Index slots those passes changed (the primary's word and block copied, or cleared)")
            .callback(cb -> cb.call(cluster.copySlots())).build());
        add(CounterWithCallback.builder().name("rdmakv_failovers_total")
            .help("Failovers in the maps this node applied: a replica group whose primary became another member")
            .callback(cb -> cb.call(cluster.failovers())).build());
        moves(cluster);
        add(CounterWithCallback.builder().name("rdmakv_cluster_maps_refused_total")
            .help("Maps read from ZooKeeper that the node refused to apply, by the rule broken: unreadable, epoch " +
                "(not one step per write), geometry (not the cluster's partitions, factor or groups), promotion " +
                "(a node made a member without having been one or copying)")
            .labelNames("reason")
            .callback(cb ->
            {
                for (final io.rdmakv.server.cluster.map.MapRefusal r : io.rdmakv.server.cluster.map.MapRefusal.values())
                {
                    cb.call(cluster.mapsRefused(r), r.label());
                }
            }).build());
    }

    /** Partition moves (docs/growth.md §13). */
    private void moves(final io.rdmakv.server.cluster.ClusterView cluster)
    {
        add(GaugeWithCallback.builder().name("rdmakv_partitions_moving")
            .help("Partitions of move batches in the applied map whose source or target replica group is this " +
                "node's, by role: source, target")
            .labelNames("role")
            .callback(cb ->
            {
                cb.call(cluster.partitionsMoving(true), "source");
                cb.call(cluster.partitionsMoving(false), "target");
            }).build());
        add(GaugeWithCallback.builder().name("rdmakv_move_phase_age_seconds")
            .help("How long the oldest move batch of the applied map has been in its phase, as this node saw it " +
                "(0: no move): a stuck move")
            .callback(cb -> cb.call(cluster.movePhaseAgeSeconds())).build());
        add(CounterWithCallback.builder().name("rdmakv_moves_total")
            .help("Move batches this node copied in as its group's primary, by outcome: finished (opened here), " +
                "aborted (abandoned before SWITCH: the copy zeroed)")
            .labelNames("outcome")
            .callback(cb ->
            {
                cb.call(cluster.moves(true), "finished");
                cb.call(cluster.moves(false), "aborted");
            }).build());
        add(CounterWithCallback.builder().name("rdmakv_move_keys_total")
            .help("Keys this node's partition copies wrote into its replica group (new, changed and redone copies)")
            .callback(cb -> cb.call(cluster.moveKeys())).build());
        add(CounterWithCallback.builder().name("rdmakv_move_bytes_total")
            .help("Bytes of the blocks those copies wrote")
            .callback(cb -> cb.call(cluster.moveBytes())).build());
        add(CounterWithCallback.builder().name("rdmakv_move_freezes_total")
            .help("Index segments this node froze along its chain as a moving partition's source primary")
            .callback(cb -> cb.call(cluster.moveFreezes())).build());
        add(CounterWithCallback.builder().name("rdmakv_move_freeze_seconds_total")
            .help("Time those freezes took: writes to a partition wait while its segment freezes and until it opens")
            .callback(cb -> cb.call(cluster.moveFreezeNanos() / 1e9)).build());
    }

    private void completionErrors(final ServerCounters c)
    {
        add(CounterWithCallback.builder().name("rdmakv_completion_errors_total")
            .help("Failed work completions on the control plane's queue pairs, by ibv_wc_status")
            .labelNames("status")
            .callback(cb ->
            {
                for (final WcStatus status : WcStatus.values())
                {
                    if (status != WcStatus.SUCCESS && status.code() < ServerCounters.STATUS_CODES)
                    {
                        cb.call(c.completionErrors(status.code()), status.name());
                    }
                }
            }).build());
    }
}
