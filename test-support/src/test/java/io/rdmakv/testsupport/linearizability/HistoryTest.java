package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HistoryTest
{
    @Test
    void recordsEveryOperationFromManyThreadsInInvocationOrder() throws Exception
    {
        final History history = new History();
        final int threads = 8;
        final int each = 5_000;
        try (ExecutorService pool = Executors.newFixedThreadPool(threads))
        {
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                pool.submit(() ->
                {
                    for (int i = 0; i < each; i++)
                    {
                        final long invoked = history.invoke();
                        history.record(Op.get(thread, invoked, history.now(), OptionalLong.empty()));
                    }
                });
            }
        }
        final List<Op> ops = history.ops();
        assertEquals(threads * each, ops.size());
        assertTrue(IntStream.range(1, ops.size())
            .allMatch(i -> ops.get(i - 1).invokeNanos() <= ops.get(i).invokeNanos()));
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            assertEquals(each, ops.stream().filter(op -> op.process() == thread).count());
        }
        assertTrue(history.check(new LinearizabilityChecker(), OptionalLong.empty()).isLinearizable());
    }

    @Test
    void opsRejectResponsesBeforeInvocationsAndResultsThatDoNotFitTheKind()
    {
        assertThrows(IllegalArgumentException.class,
            () -> Op.put(0, 1, 10, 5));
        assertThrows(IllegalArgumentException.class,
            () -> new Op(0, OpKind.PUT, OptionalLong.empty(), 1, OptionalLong.empty(), Outcome.TRUE, 0, 1));
        assertThrows(IllegalArgumentException.class,
            () -> new Op(0, OpKind.DELETE, OptionalLong.empty(), 0, OptionalLong.empty(), Outcome.OK, 0, 1));
    }
}
