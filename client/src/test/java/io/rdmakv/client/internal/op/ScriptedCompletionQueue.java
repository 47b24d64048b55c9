package io.rdmakv.client.internal.op;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.WorkCompletions;

import java.util.ArrayDeque;

/** The completion queue of a {@link ScriptedNic}: completions in the order the responder produced them. */
final class ScriptedCompletionQueue implements CompletionQueue
{
    private static final int QP_NUM = 1;

    private record Completion(long wrId, int status, int opcode, int byteLen)
    {
    }

    private final ArrayDeque<Completion> completions = new ArrayDeque<>();

    void add(final long wrId, final int status, final int opcode, final int byteLen)
    {
        completions.add(new Completion(wrId, status, opcode, byteLen));
    }

    @Override
    public int poll(final WorkCompletions into)
    {
        int n = 0;
        while (n < into.capacity() && !completions.isEmpty())
        {
            final Completion c = completions.poll();
            into.at(n++).fill(c.wrId(), c.status(), c.opcode(), c.byteLen(), QP_NUM);
        }
        return n;
    }

    @Override
    public int await(final WorkCompletions into, final long timeoutNanos)
    {
        return poll(into);
    }

    @Override
    public int capacity()
    {
        return 64;
    }

    @Override
    public Context context()
    {
        return null;
    }

    @Override
    public void close()
    {
    }
}
