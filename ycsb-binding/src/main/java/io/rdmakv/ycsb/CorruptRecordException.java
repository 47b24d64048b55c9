package io.rdmakv.ycsb;

/** A stored value that is not a record in {@link RecordCodec}'s format; the message says where it goes wrong. */
public final class CorruptRecordException extends RuntimeException
{
    public CorruptRecordException(final String message)
    {
        super(message);
    }
}
