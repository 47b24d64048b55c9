package io.rdmakv.client.metrics;

/**
 * Fixed histogram buckets: latency from 2 microseconds to 5 seconds (roughly 1-2-5 per decade, which
 * covers RDMA and the tcp transport alike) and round trips from 1 to 16. Upper bounds are inclusive, as
 * in Prometheus; the last bucket is +Inf.
 */
final class Buckets
{
    static final long[] LATENCY_NANOS = {
        2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
        1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000, 50_000_000, 100_000_000, 200_000_000,
        500_000_000, 1_000_000_000, 5_000_000_000L};
    static final int LATENCY_COUNT = LATENCY_NANOS.length + 1;
    static final double[] LATENCY_SECONDS = upperBounds(LATENCY_NANOS, 1e-9);

    static final long[] ROUND_TRIPS = {1, 2, 3, 4, 5, 6, 8, 12, 16};
    static final int ROUND_TRIP_COUNT = ROUND_TRIPS.length + 1;
    static final double[] ROUND_TRIP_BOUNDS = upperBounds(ROUND_TRIPS, 1);

    private Buckets()
    {
    }

    /** The bucket of {@code value}: the first whose upper bound is at least {@code value}, else +Inf. */
    static int of(final long[] bounds, final long value)
    {
        for (int i = 0; i < bounds.length; i++)
        {
            if (value <= bounds[i])
            {
                return i;
            }
        }
        return bounds.length;
    }

    private static double[] upperBounds(final long[] bounds, final double scale)
    {
        final double[] result = new double[bounds.length + 1];
        for (int i = 0; i < bounds.length; i++)
        {
            result[i] = bounds[i] * scale;
        }
        result[bounds.length] = Double.POSITIVE_INFINITY;
        return result;
    }
}
