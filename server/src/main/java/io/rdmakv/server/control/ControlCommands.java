package io.rdmakv.server.control;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Tasks other threads hand the control agent (a session registered or gone, a map to apply, a count to
 * add, anything through {@link ControlAgent#execute}), run on the agent's thread in the order offered,
 * all of those waiting at each duty cycle.
 */
final class ControlCommands
{
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    /** Queues {@code task} for the agent's thread. Any thread. */
    void offer(final Runnable task)
    {
        tasks.add(task);
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
