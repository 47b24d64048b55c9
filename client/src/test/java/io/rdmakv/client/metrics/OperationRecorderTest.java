package io.rdmakv.client.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.peer.Status;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OperationRecorderTest
{
    @Test
    void everyStatusHasItsResult()
    {
        assertEquals("ok", Operations.RESULTS[Operations.resultIndex(Status.OK)]);
        assertEquals("not_found", Operations.RESULTS[Operations.resultIndex(Status.NOT_FOUND)]);
        assertEquals("conflict", Operations.RESULTS[Operations.resultIndex(Status.CONFLICT)]);
        for (int status = -1; status >= Status.MOVED; status--)
        {
            assertEquals(Status.name(status).toLowerCase(java.util.Locale.ROOT),
                Operations.RESULTS[Operations.resultIndex(status)], "status " + status);
        }
        assertEquals("error", Operations.RESULTS[Operations.resultIndex(-99)]);
        assertEquals("error", Operations.RESULTS[Operations.resultIndex(7)]);
    }

    @Test
    void bucketsIncludeTheirUpperBound()
    {
        assertEquals(0, Buckets.of(Buckets.LATENCY_NANOS, 0));
        assertEquals(0, Buckets.of(Buckets.LATENCY_NANOS, 2_000));
        assertEquals(1, Buckets.of(Buckets.LATENCY_NANOS, 2_001));
        assertEquals(Buckets.LATENCY_COUNT - 1, Buckets.of(Buckets.LATENCY_NANOS, Long.MAX_VALUE));
        assertEquals(0, Buckets.of(Buckets.ROUND_TRIPS, 1));
        assertEquals(Buckets.ROUND_TRIP_COUNT - 1, Buckets.of(Buckets.ROUND_TRIPS, 17));
        assertEquals(Double.POSITIVE_INFINITY, Buckets.LATENCY_SECONDS[Buckets.LATENCY_COUNT - 1]);
        assertEquals(2e-6, Buckets.LATENCY_SECONDS[0], 1e-15);
    }

    @Test
    void frozenWaitsAreCountedOncePerWriteAndSummed()
    {
        final OperationRecorder recorder = new OperationRecorder(Thread.currentThread());
        recorder.frozenWait(3_000_000L);
        recorder.frozenWait(40_000_000L);
        final OperationRecorder total = new OperationRecorder(Thread.currentThread());
        recorder.addTo(total);
        assertEquals(43_000_000L, total.frozenWaitNanos[0]);
        assertEquals(1, total.frozenWait[Buckets.of(Buckets.LATENCY_NANOS, 3_000_000L)]);
        assertEquals(1, total.frozenWait[Buckets.of(Buckets.LATENCY_NANOS, 40_000_000L)]);
        assertEquals(2, java.util.Arrays.stream(total.frozenWait).sum());
    }

    @Test
    void aBatchCountsEachOperationWithItsShareOfTheRoundTrips()
    {
        final OperationRecorder recorder = new OperationRecorder(Thread.currentThread());
        final LaneCounters lane = new LaneCounters();
        recorder.begin(lane);
        lane.add(ClientCounter.ROUND_TRIPS, 5);
        recorder.endBatch(Operations.GET, 3, 1);

        assertEquals(3, recorder.results[Operations.GET * Operations.RESULT_COUNT]);
        assertEquals(1, recorder.results[Operations.GET * Operations.RESULT_COUNT +
            Operations.resultIndex(Status.NOT_FOUND)]);
        assertEquals(5, recorder.roundTripSum[Operations.GET], "the shares add up to the batch's round trips");
        assertEquals(3, recorder.roundTrips[Operations.GET * Buckets.ROUND_TRIP_COUNT + Buckets.of(Buckets.ROUND_TRIPS,
            1)], "shares of 2, 1, 1, 1");
        long latencies = 0;
        for (int b = 0; b < Buckets.LATENCY_COUNT; b++)
        {
            latencies += recorder.latency[Operations.GET * Buckets.LATENCY_COUNT + b];
        }
        assertEquals(4, latencies, "each operation has the batch's latency");

        recorder.begin(lane);
        recorder.endBatch(Operations.PUT, 0, 0);
        assertEquals(0, recorder.results[Operations.PUT * Operations.RESULT_COUNT], "an empty batch counts nothing");
    }

    @Test
    void countsOfEndedThreadsAreKept() throws InterruptedException
    {
        final ClientMetrics metrics = ClientMetrics.register(new PrometheusRegistry(),
            LaneCounters::new, () -> 0);
        final LaneCounters lane = new LaneCounters();
        final Thread worker = Thread.ofPlatform().start(() ->
        {
            for (int i = 0; i < 10; i++)
            {
                metrics.recorder().begin(lane).end(Operations.PUT, Status.OK);
            }
            metrics.recorder().begin(lane).end(Operations.GET, Status.NOT_FOUND);
        });
        worker.join();
        metrics.recorder().begin(lane).end(Operations.GET, Status.TIMEOUT);
        for (int scrape = 0; scrape < 2; scrape++)
        {
            final OperationRecorder total = metrics.snapshot();
            assertEquals(10, total.results[Operations.PUT * Operations.RESULT_COUNT]);
            assertEquals(1, total.results[Operations.GET * Operations.RESULT_COUNT +
                Operations.resultIndex(Status.NOT_FOUND)]);
            assertEquals(1, total.results[Operations.GET * Operations.RESULT_COUNT +
                Operations.resultIndex(Status.TIMEOUT)]);
            long putLatencies = 0;
            for (int b = 0; b < Buckets.LATENCY_COUNT; b++)
            {
                putLatencies += total.latency[Operations.PUT * Buckets.LATENCY_COUNT + b];
            }
            assertEquals(10, putLatencies, "scrape " + scrape + ": the ended thread is folded in once");
        }
    }
}
