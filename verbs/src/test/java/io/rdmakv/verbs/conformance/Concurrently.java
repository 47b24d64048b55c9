package io.rdmakv.verbs.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs tasks on their own threads, released together, and waits for all of them with one deadline. */
final class Concurrently
{
    @FunctionalInterface
    interface Task
    {
        void run() throws Exception;
    }

    private Concurrently()
    {
    }

    /**
     * Runs every task on its own (daemon) thread and returns when all are done. The first failure is
     * rethrown (the others are attached as suppressed); a task still running after {@code timeoutNanos}
     * fails the test, and the stragglers are interrupted and abandoned.
     */
    static void run(final long timeoutNanos, final List<Task> tasks) throws Exception
    {
        final CountDownLatch start = new CountDownLatch(1);
        final List<FutureTask<Void>> futures = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        try
        {
            for (int i = 0; i < tasks.size(); i++)
            {
                final Task task = tasks.get(i);
                final FutureTask<Void> future = new FutureTask<>(() ->
                {
                    start.await();
                    task.run();
                    return null;
                });
                futures.add(future);
                threads.add(Thread.ofPlatform().daemon().name("conformance-worker-" + i).start(future));
            }
        }
        finally
        {
            start.countDown();
        }

        final long deadline = System.nanoTime() + timeoutNanos;
        Throwable failure = null;
        for (int i = 0; i < futures.size(); i++)
        {
            Throwable t = null;
            try
            {
                futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (final ExecutionException e)
            {
                t = e.getCause();
            }
            catch (final TimeoutException e)
            {
                t = new AssertionError("worker " + i + " still running after " +
                    TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (a hang)");
            }
            if (t != null)
            {
                if (failure == null)
                {
                    failure = t;
                }
                else
                {
                    failure.addSuppressed(t);
                }
            }
        }
        if (failure != null)
        {
            threads.forEach(Thread::interrupt);
            if (failure instanceof Exception e)
            {
                throw e;
            }
            if (failure instanceof Error e)
            {
                throw e;
            }
            throw new AssertionError(failure);
        }
    }
}
