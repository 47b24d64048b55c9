package io.rdmakv.server.replication;

/** A freeze given up because the move it was for is being abandoned ({@link PartitionFreezer#freeze}). */
public final class FreezeCancelledException extends IllegalStateException
{
    public FreezeCancelledException(final String message)
    {
        super(message);
    }
}
