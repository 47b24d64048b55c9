package io.rdmakv.client;

/** The operation did not complete in time. A write may or may not have taken effect; the connection is dropped and reopened on the next call. */
public class KvTimeoutException extends KvException
{
    public KvTimeoutException(final String message)
    {
        super(message);
    }

    public KvTimeoutException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
