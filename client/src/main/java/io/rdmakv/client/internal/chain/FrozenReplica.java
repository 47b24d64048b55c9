package io.rdmakv.client.internal.chain;

import io.rdmakv.common.layout.SlotWord;

import java.util.concurrent.locks.LockSupport;

/**
 * A chain write whose first backup took its word, meeting the word it replaces frozen ({@link SlotWord#MOVING}) at
 * a later replica (another backup, or the primary). The write is decided, so it must land there too; the freeze
 * there is being lifted (the replicas of a group clear MOVING when each applies the map that opens or abandons a
 * move, in no particular order: docs/growth.md §6), so the writer waits and CASes again. Ignoring the failed CAS,
 * as a chain write may do when a later replica holds another word, would acknowledge a write the primary does not
 * hold. The wait is bounded; past it the lane reports a time-out and the operation is checked before it runs
 * again ({@code KvClient#verify}).
 *
 * <p>A later replica holding the write's own word with MOVING needs nothing: the freezer finished the write there.
 */
final class FrozenReplica
{
    /** How long a chain write waits at most for a later replica to lift a freeze. */
    static final long MAX_WAIT_NANOS = 5_000_000_000L;
    private static final long FIRST_PAUSE_NANOS = 50_000L;
    private static final long MAX_PAUSE_NANOS = 1_000_000L;

    private FrozenReplica()
    {
    }

    /** Whether a later replica's CAS from {@code expected} found the word it replaces frozen: wait and CAS again. */
    static boolean holdsFrozen(final long found, final long expected)
    {
        return found == (expected | SlotWord.MOVING);
    }

    /**
     * Pauses before CAS attempt {@code waits + 1} of a wait that began at {@code startNanos}; false when the wait is
     * over its bound (give up).
     */
    static boolean pause(final long startNanos, final int waits)
    {
        if (System.nanoTime() - startNanos > MAX_WAIT_NANOS)
        {
            return false;
        }
        LockSupport.parkNanos(Math.min(MAX_PAUSE_NANOS, FIRST_PAUSE_NANOS << Math.min(waits, 5)));
        return true;
    }
}
