package io.rdmakv.testsupport.linearizability;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A thread-safe recorder of a multi-key history, checked key by key: linearizability is local, so
 * a history is linearizable exactly when each key's sub-history is. Keys must have value equality
 * (use a hex string or {@code List<Byte>} for byte-array keys).
 *
 * <pre>{@code
 * final long t = history.invoke();
 * store.put(key, v);
 * history.record(key, Op.put(thread, v, t, history.now()));
 * ...
 * final KeyedCheckResult<String> r = history.check(new LinearizabilityChecker());
 * assertTrue(r.isLinearizable(), r::summary);
 * }</pre>
 *
 * @param <K> the key type
 */
public final class KeyedHistory<K>
{
    private final Recorder<KeyedOp<K>> recorder = new Recorder<>();

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

    /** Records a finished (or outcome-unknown) operation on {@code key}. */
    public void record(final K key, final Op op)
    {
        recorder.add(new KeyedOp<>(key, op));
    }

    /** The operations recorded so far, in invocation order. */
    public List<KeyedOp<K>> ops()
    {
        final List<KeyedOp<K>> ops = recorder.snapshot();
        ops.sort(Comparator.comparingLong(k -> k.op().invokeNanos()));
        return ops;
    }

    /** The operations recorded so far, per key (keys in order of first invocation). */
    public Map<K, List<Op>> byKey()
    {
        return split(ops());
    }

    /** Checks every key, each starting absent. */
    public KeyedCheckResult<K> check(final LinearizabilityChecker checker)
    {
        return check(ops(), checker, key -> OptionalLong.empty());
    }

    /** Checks every key, each starting at {@code initial.apply(key)} (empty: absent). */
    public KeyedCheckResult<K> check(final LinearizabilityChecker checker,
                                     final Function<? super K, OptionalLong> initial)
    {
        return check(ops(), checker, initial);
    }

    /** Splits {@code ops} per key, keeping their order within a key; keys in order of first appearance. */
    public static <K> Map<K, List<Op>> split(final Collection<KeyedOp<K>> ops)
    {
        final Map<K, List<Op>> byKey = new LinkedHashMap<>();
        for (final KeyedOp<K> op : ops)
        {
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op.op());
        }
        return byKey;
    }

    /** Checks each key of {@code ops} separately (in parallel), each starting at {@code initial.apply(key)}. */
    public static <K> KeyedCheckResult<K> check(final Collection<KeyedOp<K>> ops, final LinearizabilityChecker checker,
                                                final Function<? super K, OptionalLong> initial)
    {
        final Map<K, List<Op>> byKey = split(ops);
        final Map<K, CheckResult> checked = new ConcurrentHashMap<>();
        byKey.entrySet().parallelStream()
            .forEach(e -> checked.put(e.getKey(), checker.check(e.getValue(), initial.apply(e.getKey()))));
        final Map<K, CheckResult> results = new LinkedHashMap<>();
        for (final K key : byKey.keySet())
        {
            results.put(key, checked.get(key));
        }
        return new KeyedCheckResult<>(results);
    }
}
