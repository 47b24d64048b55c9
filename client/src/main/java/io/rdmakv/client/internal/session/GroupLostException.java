package io.rdmakv.client.internal.session;

/** Every replica of the key's group is gone: its partitions cannot be served until an operator acts. */
public final class GroupLostException extends RuntimeException
{
    public GroupLostException(final int partition, final int group)
    {
        super("partition " + partition + " is unavailable: every replica of its group " + group + " is gone");
    }
}
