package io.rdmakv.server.control;

/**
 * The wr_id of a session's work requests on the node's shared completion queue: the session's id (its low 48 bits)
 * above a 16-bit slot (a receive buffer, {@code 1000 +} a send buffer, the bind of its window).
 *
 * <p>The agent finds a completion's session by the queue pair number, and takes the completion only when the wr_id
 * names that session too. A device may give a destroyed queue pair's number to the next queue pair created (siw
 * takes the lowest free number), and completions of the destroyed one can still wait in the shared queue: without
 * the tag such a leftover flush was taken for the new session's and fenced it (issue 24: a fresh client's first
 * GET over siw failed with CONNECTION_LOST).
 */
final class SessionWrId
{
    static final int SLOT_BITS = 16;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    private static final long SESSION_MASK = (1L << (Long.SIZE - SLOT_BITS)) - 1;

    private SessionWrId()
    {
    }

    /** The wr_id of {@code slot} (0..65535) of session {@code sessionId}. */
    static long of(final long sessionId, final int slot)
    {
        return (sessionId & SESSION_MASK) << SLOT_BITS | (slot & SLOT_MASK);
    }

    /** Whether {@code wrId} is one of session {@code sessionId}'s. */
    static boolean isOf(final long wrId, final long sessionId)
    {
        return wrId >>> SLOT_BITS == (sessionId & SESSION_MASK);
    }

    /** The slot of {@code wrId}: a receive buffer's index, for a receive. */
    static int slot(final long wrId)
    {
        return (int)(wrId & SLOT_MASK);
    }

    /** The session id (its low 48 bits) a wr_id names, for messages. */
    static long sessionOf(final long wrId)
    {
        return wrId >>> SLOT_BITS;
    }
}
