package io.rdmakv.server.bootstrap;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A session's heartbeats are answered while the node serves, and a flood earns one answer per half interval. */
class HeartbeatAnswersTest
{
    @Test
    void aFloodIsAnsweredOncePerHalfIntervalAndNothingWhileNotServing() throws InterruptedException
    {
        final AtomicBoolean serving = new AtomicBoolean(true);
        final HeartbeatAnswers answers = new HeartbeatAnswers(serving::get, TimeUnit.MILLISECONDS.toNanos(400));
        assertTrue(answers.getAsBoolean(), "the first heartbeat");
        int answered = 0;
        for (int i = 0; i < 10_000; i++)
        {
            answered += answers.getAsBoolean() ? 1 : 0;
        }
        assertTrue(answered <= 1, answered + " answers to a flood within the half interval");
        Thread.sleep(250);
        assertTrue(answers.getAsBoolean(), "the next heartbeat, a half interval later");
        Thread.sleep(250);
        serving.set(false);
        assertFalse(answers.getAsBoolean(), "a node that does not serve answers nothing");
    }
}
