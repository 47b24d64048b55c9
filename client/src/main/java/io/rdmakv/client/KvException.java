package io.rdmakv.client;

/** Base of every error {@link KvClient} reports. Unchecked: the caller decides where to handle them. */
public class KvException extends RuntimeException
{
    public KvException(final String message)
    {
        super(message);
    }

    public KvException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
