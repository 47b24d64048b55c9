package io.rdmakv.client;

/** A value longer than the store's value limit (see KvClient#maxValueLength). Nothing was written. */
public class ValueTooLargeException extends KvException
{
    public ValueTooLargeException(final String message)
    {
        super(message);
    }

    public ValueTooLargeException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
