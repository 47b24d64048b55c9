package io.rdmakv.testsupport.linearizability;

import java.util.Arrays;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/** A register the simulated clients of the tests run against: a correct one, or one with stale reads. */
interface SimulatedRegister
{
    OptionalLong get(int thread, SplittableRandom random);

    void put(int thread, long value);

    boolean delete(int thread);

    boolean compareAndSet(int thread, OptionalLong expected, long value);

    /** A linearizable register: every operation is one atomic step on an {@link AtomicReference}. */
    static SimulatedRegister atomic()
    {
        return new Atomic();
    }

    /** A register whose reads return, with probability {@code staleness}, the value the thread saw last. */
    static SimulatedRegister withStaleReads(final double staleness, final int threads)
    {
        return new StaleReads(staleness, threads);
    }

    /** Each operation is one atomic step, so the register is linearizable. */
    class Atomic implements SimulatedRegister
    {
        private final AtomicReference<Long> cell = new AtomicReference<>();

        @Override
        public OptionalLong get(final int thread, final SplittableRandom random)
        {
            return toOptional(cell.get());
        }

        @Override
        public void put(final int thread, final long value)
        {
            cell.set(value);
        }

        @Override
        public boolean delete(final int thread)
        {
            return cell.getAndSet(null) != null;
        }

        @Override
        public boolean compareAndSet(final int thread, final OptionalLong expected, final long value)
        {
            final Long boxed = value;
            while (true)
            {
                final Long current = cell.get();
                if (!toOptional(current).equals(expected))
                {
                    return false;
                }
                if (cell.compareAndSet(current, boxed))
                {
                    return true;
                }
            }
        }

        static OptionalLong toOptional(final Long value)
        {
            return value == null ? OptionalLong.empty() : OptionalLong.of(value);
        }
    }

    /** Writes are atomic, but a read may return a per-thread cached value instead of the current one. */
    final class StaleReads extends Atomic
    {
        private final double staleness;
        private final OptionalLong[] seen;

        StaleReads(final double staleness, final int threads)
        {
            this.staleness = staleness;
            this.seen = new OptionalLong[threads];
            Arrays.fill(seen, OptionalLong.empty());
        }

        @Override
        public OptionalLong get(final int thread, final SplittableRandom random)
        {
            if (random.nextDouble() < staleness)
            {
                return seen[thread];
            }
            final OptionalLong value = super.get(thread, random);
            seen[thread] = value;
            return value;
        }

        @Override
        public void put(final int thread, final long value)
        {
            super.put(thread, value);
            seen[thread] = OptionalLong.of(value);
        }
    }
}
