package io.rdmakv.client.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * The latency and round-trip histograms, built at scrape time from the summed recorders (classic
 * buckets, one series per operation type).
 */
final class OperationHistograms implements MultiCollector
{
    static final String DURATION = "rdmakv_client_operation_duration_seconds";
    static final String ROUND_TRIPS = "rdmakv_client_operation_round_trips";
    static final String FROZEN_WAIT = "rdmakv_client_frozen_wait_seconds";

    private final Supplier<OperationRecorder> totals;

    OperationHistograms(final Supplier<OperationRecorder> totals)
    {
        this.totals = totals;
    }

    @Override
    public MetricSnapshots collect()
    {
        final OperationRecorder total = totals.get();
        final HistogramSnapshot.Builder duration = HistogramSnapshot.builder().name(DURATION)
            .help("Time an operation took on its lane, from the first work request to the result (opening a " +
                "session is not included)");
        final HistogramSnapshot.Builder trips = HistogramSnapshot.builder().name(ROUND_TRIPS)
            .help("Network round trips (doorbells waited on) per operation");
        for (int op = 0; op < Operations.COUNT; op++)
        {
            final Labels labels = Labels.of("op", Operations.NAMES[op]);
            duration.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                .classicHistogramBuckets(ClassicHistogramBuckets.of(Buckets.LATENCY_SECONDS,
                    slice(total.latency, op, Buckets.LATENCY_COUNT)))
                .sum(total.latencyNanos[op] * 1e-9).build());
            trips.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder().labels(labels)
                .classicHistogramBuckets(ClassicHistogramBuckets.of(Buckets.ROUND_TRIP_BOUNDS,
                    slice(total.roundTrips, op, Buckets.ROUND_TRIP_COUNT)))
                .sum(total.roundTripSum[op]).build());
        }
        final HistogramSnapshot frozen = HistogramSnapshot.builder().name(FROZEN_WAIT)
            .help("Time a write waited on a partition frozen for a move, per write that waited: the write pause of a " +
                "move as writers see it")
            .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(Buckets.LATENCY_SECONDS, total.frozenWait.clone()))
                .sum(total.frozenWaitNanos[0] * 1e-9).build()).build();
        return MetricSnapshots.of(duration.build(), trips.build(), frozen);
    }

    @Override
    public List<String> getPrometheusNames()
    {
        return List.of(DURATION, ROUND_TRIPS, FROZEN_WAIT);
    }

    private static long[] slice(final long[] all, final int op, final int width)
    {
        return Arrays.copyOfRange(all, op * width, (op + 1) * width);
    }
}
