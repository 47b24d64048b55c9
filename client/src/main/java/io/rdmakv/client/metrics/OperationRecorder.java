package io.rdmakv.client.metrics;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.peer.Status;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * One thread's operation counts, latency histogram and round-trip histogram. Written only by its thread,
 * with plain stores into preallocated arrays ({@link #begin}/{@link #end}: two {@code nanoTime} calls, a
 * bucket search over 19 bounds, four increments; no allocation, no atomics, no locks); read by the
 * scraping thread with opaque loads, so a scrape sees recent, not necessarily simultaneous, values.
 */
public final class OperationRecorder
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    final long[] results = new long[Operations.COUNT * Operations.RESULT_COUNT];
    final long[] latency = new long[Operations.COUNT * Buckets.LATENCY_COUNT];
    final long[] latencyNanos = new long[Operations.COUNT];
    final long[] roundTrips = new long[Operations.COUNT * Buckets.ROUND_TRIP_COUNT];
    final long[] roundTripSum = new long[Operations.COUNT];
    /** How long writes waited on partitions frozen for a move, one count per write that waited. */
    final long[] frozenWait = new long[Buckets.LATENCY_COUNT];
    final long[] frozenWaitNanos = new long[1];
    private final WeakReference<Thread> owner;
    private LaneCounters lane;
    private long startNanos;
    private long startRoundTrips;

    OperationRecorder(final Thread owner)
    {
        this.owner = new WeakReference<>(owner);
    }

    /** Starts timing an operation on the lane whose counters are {@code counters}. Owner thread only. */
    public OperationRecorder begin(final LaneCounters counters)
    {
        lane = counters;
        startRoundTrips = counters.get(ClientCounter.ROUND_TRIPS);
        startNanos = System.nanoTime();
        return this;
    }

    /** Ends the operation begun last: counts {@code op} with the result of {@code status}. Owner thread only. */
    public void end(final int op, final int status)
    {
        final long nanos = System.nanoTime() - startNanos;
        final long trips = lane.get(ClientCounter.ROUND_TRIPS) - startRoundTrips;
        lane = null;
        results[op * Operations.RESULT_COUNT + Operations.resultIndex(status)]++;
        latency[op * Buckets.LATENCY_COUNT + Buckets.of(Buckets.LATENCY_NANOS, nanos)]++;
        latencyNanos[op] += nanos;
        roundTrips[op * Buckets.ROUND_TRIP_COUNT + Buckets.of(Buckets.ROUND_TRIPS, trips)]++;
        roundTripSum[op] += trips;
    }

    /**
     * Ends a batch begun last (one {@link #begin} for one lane's doorbells): counts {@code ok} operations
     * {@code op} with result OK and {@code notFound} with NOT_FOUND, each with the batch's latency (what its
     * caller waited) and its share of the batch's round trips (shares differ by at most one and add up to the
     * batch's). Operations the batch left to single ones are counted by those. Owner thread only.
     */
    public void endBatch(final int op, final int ok, final int notFound)
    {
        final long nanos = System.nanoTime() - startNanos;
        final long trips = lane.get(ClientCounter.ROUND_TRIPS) - startRoundTrips;
        lane = null;
        final int count = ok + notFound;
        for (int j = 0; j < count; j++)
        {
            final long share = trips / count + (j < trips % count ? 1 : 0);
            results[op * Operations.RESULT_COUNT + (j < ok ? Operations.resultIndex(Status.OK) :
                Operations.resultIndex(Status.NOT_FOUND))]++;
            latency[op * Buckets.LATENCY_COUNT + Buckets.of(Buckets.LATENCY_NANOS, nanos)]++;
            latencyNanos[op] += nanos;
            roundTrips[op * Buckets.ROUND_TRIP_COUNT + Buckets.of(Buckets.ROUND_TRIPS, share)]++;
            roundTripSum[op] += share;
        }
    }

    /**
     * Counts a write that waited {@code nanos} in all on a partition frozen for a move, from its first frozen answer
     * to its end (whatever the end: done, or given up). Owner thread only.
     */
    public void frozenWait(final long nanos)
    {
        frozenWait[Buckets.of(Buckets.LATENCY_NANOS, nanos)]++;
        frozenWaitNanos[0] += nanos;
    }

    /** True once the owning thread has ended (its counts can be folded into a retired total). */
    boolean ownerGone()
    {
        final Thread t = owner.get();
        return t == null || !t.isAlive();
    }

    /** Adds this recorder's counts into {@code total} (reading opaquely: the owner may be writing). */
    void addTo(final OperationRecorder total)
    {
        add(results, total.results);
        add(latency, total.latency);
        add(latencyNanos, total.latencyNanos);
        add(roundTrips, total.roundTrips);
        add(roundTripSum, total.roundTripSum);
        add(frozenWait, total.frozenWait);
        add(frozenWaitNanos, total.frozenWaitNanos);
    }

    private static void add(final long[] from, final long[] to)
    {
        for (int i = 0; i < from.length; i++)
        {
            to[i] += (long)LONGS.getOpaque(from, i);
        }
    }
}
