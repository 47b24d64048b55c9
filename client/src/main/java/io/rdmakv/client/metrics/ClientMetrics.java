package io.rdmakv.client.metrics;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneCounters;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * A {@link io.rdmakv.client.KvClient}'s metrics in the application's Prometheus registry:
 * <ul>
 * <li>{@code rdmakv_client_operations_total{op,result}}, {@code rdmakv_client_operation_duration_seconds{op}}
 *     and {@code rdmakv_client_operation_round_trips{op}} (histograms), from the per-thread
 *     {@link OperationRecorder}s;</li>
 * <li>retries, round trips, cache hits, control messages and dropped frees: every {@link ClientCounter}
 *     with a metric name, from the lanes' counters; and the open sessions;</li>
 * <li>{@code rdmakv_client_connect_failures_total}: sessions that could not be opened.</li>
 * </ul>
 * Everything is read when the registry is scraped.
 */
public final class ClientMetrics
{
    private final PrometheusRegistry registry;
    private final ThreadLocal<OperationRecorder> recorder;
    private final ConcurrentLinkedQueue<OperationRecorder> recorders = new ConcurrentLinkedQueue<>();
    private final OperationRecorder retired = new OperationRecorder(null);
    private final AtomicLong connectFailures = new AtomicLong();
    private final List<Collector> collectors = new ArrayList<>();
    private final MultiCollector histograms;

    private ClientMetrics(final PrometheusRegistry registry, final Supplier<LaneCounters> counters,
        final IntSupplier sessions)
    {
        this.registry = registry;
        this.recorder = ThreadLocal.withInitial(() ->
        {
            final OperationRecorder r = new OperationRecorder(Thread.currentThread());
            recorders.add(r);
            return r;
        });
        histograms = new OperationHistograms(this::snapshot);
        try
        {
            register(counters, sessions);
            registry.register(histograms);
        }
        catch (final RuntimeException e)
        {
            unregister();
            throw new IllegalArgumentException("cannot register the client's metrics (is another KvClient using " +
                "this registry?): " + e.getMessage(), e);
        }
    }

    /**
     * Registers a client's metrics in {@code registry}.
     *
     * @param counters the client's lane counters, summed (read at scrape time)
     * @param sessions the client's open sessions now
     * @throws IllegalArgumentException when the registry already holds client metrics
     */
    public static ClientMetrics register(final PrometheusRegistry registry, final Supplier<LaneCounters> counters,
        final IntSupplier sessions)
    {
        return new ClientMetrics(registry, counters, sessions);
    }

    /** This thread's recorder (created on first use). */
    public OperationRecorder recorder()
    {
        return recorder.get();
    }

    /** A session could not be opened (connect, HELLO, or a refusal). */
    public void connectFailed()
    {
        connectFailures.incrementAndGet();
    }

    /** Removes every metric this registered. */
    public void unregister()
    {
        for (final Collector c : collectors)
        {
            registry.unregister(c);
        }
        collectors.clear();
        registry.unregister(histograms);
    }

    /** The sum over every recorder, folding in those whose threads have ended. */
    synchronized OperationRecorder snapshot()
    {
        final OperationRecorder total = new OperationRecorder(null);
        retired.addTo(total);
        final Iterator<OperationRecorder> it = recorders.iterator();
        while (it.hasNext())
        {
            final OperationRecorder r = it.next();
            if (r.ownerGone())
            {
                r.addTo(retired);
                r.addTo(total);
                it.remove();
            }
            else
            {
                r.addTo(total);
            }
        }
        return total;
    }

    private void register(final Supplier<LaneCounters> counters, final IntSupplier sessions)
    {
        add(CounterWithCallback.builder().name("rdmakv_client_operations_total")
            .help("Operations by type (get, put, delete, compare_and_set) and result (ok, not_found, conflict, " +
                "or the failure: timeout, connection_lost, ...)")
            .labelNames("op", "result")
            .callback(cb ->
            {
                final OperationRecorder total = snapshot();
                for (int op = 0; op < Operations.COUNT; op++)
                {
                    for (int r = 0; r < Operations.RESULT_COUNT; r++)
                    {
                        final long n = total.results[op * Operations.RESULT_COUNT + r];
                        if (n > 0 || r == 0)
                        {
                            cb.call(n, Operations.NAMES[op], Operations.RESULTS[r]);
                        }
                    }
                }
            }).build());
        for (final ClientCounter counter : ClientCounter.values())
        {
            if (counter.metricName() != null)
            {
                add(CounterWithCallback.builder().name(counter.metricName()).help(counter.help())
                    .callback(cb -> cb.call(counters.get().get(counter))).build());
            }
        }
        add(CounterWithCallback.builder().name("rdmakv_client_connect_failures_total")
            .help("Sessions that could not be opened (unreachable node, refused HELLO)")
            .callback(cb -> cb.call(connectFailures.get())).build());
        add(GaugeWithCallback.builder().name("rdmakv_client_sessions")
            .help("Open sessions (one per thread and node)")
            .callback(cb -> cb.call(sessions.getAsInt())).build());
    }

    private void add(final Collector collector)
    {
        registry.register(collector);
        collectors.add(collector);
    }
}
