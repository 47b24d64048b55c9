package io.rdmakv.server.control;

import org.agrona.concurrent.IdleStrategy;

/**
 * The control agent's idle strategy: after a duty cycle with work it spins, then yields, a few times
 * (control requests come in bursts: an ALLOC, then a FREE), then sleeps in the agent's own blocking wait
 * ({@link ControlAgent#sleep}: the completion queue, until the next timer). An idle node so wakes for
 * requests and timers, not thousands of times a second as a parking back-off does.
 */
final class ControlIdle implements IdleStrategy
{
    /** Idle cycles spent spinning before yielding. */
    static final int SPINS = 50;
    /** Idle cycles spent yielding (after the spins) before sleeping. */
    static final int YIELDS = 10;

    private final Runnable sleep;
    private int idleCycles;

    ControlIdle(final Runnable sleep)
    {
        this.sleep = sleep;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            idleCycles = 0;
        }
        else
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        if (idleCycles < SPINS)
        {
            Thread.onSpinWait();
        }
        else if (idleCycles < SPINS + YIELDS)
        {
            Thread.yield();
        }
        else
        {
            sleep.run();
        }
        if (idleCycles < SPINS + YIELDS)
        {
            idleCycles++;
        }
    }

    @Override
    public void reset()
    {
        idleCycles = 0;
    }

    @Override
    public String alias()
    {
        return "control-sleep";
    }
}
