package io.rdmakv.testsupport.linearizability;

import java.util.HashMap;
import java.util.Map;

/**
 * Pins down outcome-unknown writes that were observed. Values are unique, so when a completed get
 * returned {@code v}, or a compare-and-set expecting {@code v} succeeded, the one write of
 * {@code v} took effect, and before that observer answered. If that write's outcome was unknown it
 * is therefore a completed, successful write whose response is the earliest such answer: it must
 * precede every operation invoked after it. This turns optional operations, which the search can
 * only guess at, into ordinary ones.
 */
final class ObservedWrites
{
    private ObservedWrites()
    {
    }

    /** {@code ops} with every observed outcome-unknown write made completed, index for index. */
    static Op[] pin(final Op[] ops)
    {
        final Map<Long, Integer> writers = new HashMap<>();
        final Map<Long, Long> firstSeen = new HashMap<>();
        for (final Op op : ops)
        {
            if (op.kind() == OpKind.PUT || op.kind() == OpKind.COMPARE_AND_SET)
            {
                writers.merge(op.value(), 1, Integer::sum);
            }
            if (op.completed() && op.kind() == OpKind.GET && op.read().isPresent())
            {
                firstSeen.merge(op.read().getAsLong(), op.responseNanos(), Math::min);
            }
            if (op.completed() && op.kind() == OpKind.COMPARE_AND_SET && op.outcome() == Outcome.TRUE
                && op.expected().isPresent())
            {
                firstSeen.merge(op.expected().getAsLong(), op.responseNanos(), Math::min);
            }
        }
        final Op[] pinned = ops.clone();
        for (int i = 0; i < ops.length; i++)
        {
            final Op op = ops[i];
            final Long seen = firstSeen.get(op.value());
            if (!op.completed() && (op.kind() == OpKind.PUT || op.kind() == OpKind.COMPARE_AND_SET)
                && writers.get(op.value()) == 1 && seen != null && seen >= op.invokeNanos())
            {
                pinned[i] = new Op(op.process(), op.kind(), op.expected(), op.value(), op.read(),
                    op.kind() == OpKind.PUT ? Outcome.OK : Outcome.TRUE, op.invokeNanos(), seen);
            }
        }
        return pinned;
    }
}
