package io.rdmakv.testsupport.concurrent;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/** Platform threads that start their work at the same moment, so that it races. */
public final class Racers
{
    /** The work of one thread, numbered from 0. */
    @FunctionalInterface
    public interface Body
    {
        void run(int process) throws Exception;
    }

    private Racers()
    {
    }

    /**
     * Starts {@code count} platform threads named {@code namePrefix} and their number, lets them all run
     * {@code body} at once, and waits for each at most {@code join}. Returns what they threw (a live list: a
     * thread still running after its wait may add to it).
     */
    public static List<Throwable> run(final String namePrefix, final int count, final Body body, final Duration join)
        throws InterruptedException
    {
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final CountDownLatch start = new CountDownLatch(1);
        final Thread[] threads = new Thread[count];
        for (int t = 0; t < count; t++)
        {
            final int process = t;
            threads[t] = Thread.ofPlatform().name(namePrefix + t).start(() ->
            {
                try
                {
                    start.await();
                    body.run(process);
                }
                catch (final Throwable e)
                {
                    failures.add(e);
                }
            });
        }
        start.countDown();
        for (final Thread t : threads)
        {
            t.join(join.toMillis());
        }
        return failures;
    }
}
