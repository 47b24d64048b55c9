package io.rdmakv.client;

/** The node's data area has no space left for the block. Nothing was written. */
public class OutOfSpaceException extends KvException
{
    public OutOfSpaceException(final String message)
    {
        super(message);
    }

    public OutOfSpaceException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
