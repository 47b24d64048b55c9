package io.rdmakv.common.layout;

/** A region header that this build cannot use: wrong magic, another layout version, bad geometry. */
public final class RegionLayoutException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public RegionLayoutException(final String message)
    {
        super(message);
    }

    public RegionLayoutException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
