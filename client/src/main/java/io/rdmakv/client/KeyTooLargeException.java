package io.rdmakv.client;

/** A key longer than the store's key limit (see KvClient#maxKeyLength). Nothing was written. */
public class KeyTooLargeException extends KvException
{
    public KeyTooLargeException(final String message)
    {
        super(message);
    }

    public KeyTooLargeException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
