package io.rdmakv.server.bootstrap;

import java.util.function.BooleanSupplier;

/**
 * Whether one session's next HEARTBEAT is answered: only while the node serves ({@code serving}), and at most
 * once per half heartbeat interval, so that a client flooding heartbeats gets no more answers (writes) than a
 * well-behaved one; a client that sends one per interval has each answered. One per session, used by its
 * lease reader's thread only.
 */
public final class HeartbeatAnswers implements BooleanSupplier
{
    private final BooleanSupplier serving;
    private final long minSpacingNanos;
    private long lastAnswerNanos;
    private boolean answered;

    /** @param heartbeatIntervalNanos the interval the node gives clients in HELLO_OK */
    public HeartbeatAnswers(final BooleanSupplier serving, final long heartbeatIntervalNanos)
    {
        this.serving = serving;
        this.minSpacingNanos = heartbeatIntervalNanos / 2;
    }

    @Override
    public boolean getAsBoolean()
    {
        final long now = System.nanoTime();
        if ((answered && now - lastAnswerNanos < minSpacingNanos) || !serving.getAsBoolean())
        {
            return false;
        }
        answered = true;
        lastAnswerNanos = now;
        return true;
    }
}
