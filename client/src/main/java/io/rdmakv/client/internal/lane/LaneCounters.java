package io.rdmakv.client.internal.lane;

import io.rdmakv.peer.IoCounters;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One lane's {@link ClientCounter} values in a {@code long[]}: written with plain stores only by the
 * lane's owning thread, read with opaque loads (recent, not simultaneous values) by whoever collects
 * statistics. No atomics, no allocation on the data path.
 */
public final class LaneCounters implements IoCounters
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] values = new long[ClientCounter.values().length];

    @Override
    public void roundTrips(final long delta)
    {
        values[ClientCounter.ROUND_TRIPS.ordinal()] += delta;
    }

    @Override
    public void controlMessage()
    {
        values[ClientCounter.CONTROL_MESSAGES.ordinal()]++;
    }

    /** Adds one to {@code counter}. Owner thread only. */
    public void increment(final ClientCounter counter)
    {
        values[counter.ordinal()]++;
    }

    /** Adds {@code delta} to {@code counter}. Owner thread only. */
    public void add(final ClientCounter counter, final long delta)
    {
        values[counter.ordinal()] += delta;
    }

    /** The value of {@code counter} (any thread). */
    public long get(final ClientCounter counter)
    {
        return (long)LONGS.getOpaque(values, counter.ordinal());
    }

    /** Adds this lane's values into {@code total} (the caller owns {@code total}). */
    public void addTo(final LaneCounters total)
    {
        for (int i = 0; i < values.length; i++)
        {
            total.values[i] += (long)LONGS.getOpaque(values, i);
        }
    }
}
