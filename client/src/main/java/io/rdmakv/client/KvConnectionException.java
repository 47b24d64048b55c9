package io.rdmakv.client;

/** The node could not be reached, refused the session, or the connection broke. A write in flight may or may not have taken effect; the next call reconnects. */
public class KvConnectionException extends KvException
{
    public KvConnectionException(final String message)
    {
        super(message);
    }

    public KvConnectionException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
