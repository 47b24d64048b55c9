package io.rdmakv.client;

/** The key's two candidate bucket groups have no free slot: the index is full around this key. Nothing was written. */
public class TableFullException extends KvException
{
    public TableFullException(final String message)
    {
        super(message);
    }

    public TableFullException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
