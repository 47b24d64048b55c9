package io.rdmakv.server.replication;

/**
 * A pass could not finish: the session with the primary could not be opened or broke (the primary failed, was
 * fenced, or fenced this session at a new epoch), or the node is closing. What the pass copied so far stays;
 * the next pass goes on from there.
 */
public final class CopyFailedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public CopyFailedException(final String message)
    {
        super(message);
    }

    public CopyFailedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
