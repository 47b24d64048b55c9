package io.rdmakv.verbs;

import io.rdmakv.verbs.resource.VerbsException;

/** A completion queue ({@code struct ibv_cq}). */
public interface CompletionQueue extends AutoCloseable
{
    Context context();

    int capacity();

    /**
     * Moves up to {@code completions.capacity()} completions into {@code completions}, without
     * blocking and without allocating.
     *
     * @return the number of completions written (0 when none is ready), or a negative errno when the
     * queue itself failed
     */
    int poll(WorkCompletions completions);

    /**
     * Like {@link #poll} but waits up to {@code timeoutNanos} for at least one completion.
     *
     * @return the number of completions written, 0 on timeout, or a negative errno
     */
    int await(WorkCompletions completions, long timeoutNanos);

    /**
     * Ends a concurrent {@link #await} promptly, or, when none is waiting, the next one: it returns what it
     * polled, 0 when nothing (as on a timeout), without waiting. So a thread that sleeps in {@code await} can
     * be handed work that is not a completion: queue the work, then call this; the sleeper, having checked
     * for work before it went to sleep, cannot miss it. Any thread, without allocating or blocking; a cheap
     * no-op on a closed queue. A wake-up that nobody consumes stays pending, and one that races an
     * {@code await} returning for another reason may end the next one early: {@code await} may return 0
     * before its timeout, as callers must allow anyway.
     *
     * <p>The default does nothing (an {@code await} then runs to its timeout); both providers override it.
     */
    default void wakeup()
    {
    }

    /** Idempotent. Throws {@link VerbsException} while queue pairs still use it. */
    @Override
    void close();
}
