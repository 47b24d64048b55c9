package io.rdmakv.common.cluster;

/** A cluster map that is not valid JSON, misses a field, or describes an impossible cluster. */
public final class InvalidClusterMapException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    public InvalidClusterMapException(final String message)
    {
        super(message);
    }

    public InvalidClusterMapException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
