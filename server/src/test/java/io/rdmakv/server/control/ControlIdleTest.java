package io.rdmakv.server.control;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ControlIdleTest
{
    private int sleeps;
    private final ControlIdle idle = new ControlIdle(() -> sleeps++);

    private void idleCycles(final int n)
    {
        for (int i = 0; i < n; i++)
        {
            idle.idle(0);
        }
    }

    @Test
    void spinsAndYieldsBrieflyThenSleepsOnEveryIdleCycle()
    {
        idleCycles(ControlIdle.SPINS + ControlIdle.YIELDS);
        assertEquals(0, sleeps, "a burst's next request is caught without sleeping");
        idleCycles(3);
        assertEquals(3, sleeps, "then every idle cycle blocks in the agent's wait");
    }

    @Test
    void workStartsTheSpinPhaseAgain()
    {
        idleCycles(ControlIdle.SPINS + ControlIdle.YIELDS + 1);
        idle.idle(1);
        idleCycles(ControlIdle.SPINS + ControlIdle.YIELDS);
        assertEquals(1, sleeps);
        idle.reset();
        idleCycles(ControlIdle.SPINS + ControlIdle.YIELDS);
        assertEquals(1, sleeps);
    }
}
