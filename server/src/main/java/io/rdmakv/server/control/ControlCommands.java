package io.rdmakv.server.control;

import io.rdmakv.verbs.CompletionQueue;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Tasks other threads hand the control agent (a session registered or gone, a map to apply, a count to
 * add, anything through {@link ControlAgent#execute}), run on the agent's thread in the order offered,
 * all of those waiting at each duty cycle. Offering one wakes the agent if it sleeps on its completion
 * queue ({@link CompletionQueue#wakeup}): the agent checks for tasks before it sleeps, and the task is
 * queued before the wake-up, so none waits for the sleep to end.
 */
final class ControlCommands
{
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final CompletionQueue cq;

    /** @param cq the queue the agent sleeps on */
    ControlCommands(final CompletionQueue cq)
    {
        this.cq = cq;
    }

    /** Queues {@code task} for the agent's thread and wakes the agent. Any thread. */
    void offer(final Runnable task)
    {
        tasks.add(task);
        cq.wakeup();
    }

    /** Whether no task waits. */
    boolean isEmpty()
    {
        return tasks.isEmpty();
    }

    /** Runs every task waiting, and those they queue; returns how many ran. Agent thread only. */
    int runAll()
    {
        int ran = 0;
        Runnable task;
        while ((task = tasks.poll()) != null)
        {
            task.run();
            ran++;
        }
        return ran;
    }
}
