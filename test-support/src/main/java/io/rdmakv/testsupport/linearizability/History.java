package io.rdmakv.testsupport.linearizability;

import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * A thread-safe recorder of one register's history. Each thread takes a timestamp with
 * {@link #invoke()} before it calls the store and records the operation with {@link #now()} as
 * response time once it returns (or with {@link Op#INFINITY} when the outcome is unknown):
 *
 * <pre>{@code
 * final long t = history.invoke();
 * final OptionalLong v = store.get(key);
 * history.record(Op.get(thread, t, history.now(), v));
 * }</pre>
 *
 * <p>Recording appends to a per-thread list; {@link #ops()} merges them.
 */
public final class History
{
    private final Recorder<Op> recorder = new Recorder<>();

    /** A timestamp to take just before invoking an operation. */
    public long invoke()
    {
        return System.nanoTime();
    }

    /** A timestamp to take just after an operation returned. */
    public long now()
    {
        return System.nanoTime();
    }

    /** Records a finished (or outcome-unknown) operation. */
    public void record(final Op op)
    {
        recorder.add(op);
    }

    /** The operations recorded so far, in invocation order. */
    public List<Op> ops()
    {
        final List<Op> ops = recorder.snapshot();
        ops.sort(Comparator.comparingLong(Op::invokeNanos));
        return ops;
    }

    /** Checks the operations recorded so far, the register starting at {@code initial} (empty: absent). */
    public CheckResult check(final LinearizabilityChecker checker, final OptionalLong initial)
    {
        return checker.check(ops(), initial);
    }
}
