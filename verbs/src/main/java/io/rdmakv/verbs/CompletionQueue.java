package io.rdmakv.verbs;

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

    /** Idempotent. Throws {@link VerbsException} while queue pairs still use it. */
    @Override
    void close();
}
