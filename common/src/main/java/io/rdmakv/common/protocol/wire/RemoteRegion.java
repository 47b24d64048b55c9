package io.rdmakv.common.protocol.wire;

/**
 * A memory region as a remote peer addresses it: the virtual address it was registered at, its length and
 * its R_Key. A remote address is {@code address + offset} for an offset below {@code length}.
 */
public record RemoteRegion(long address, long length, int rkey)
{
    public RemoteRegion
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("memory region length " + length + " is negative");
        }
    }

    /** The remote address of {@code offset} bytes into the region. */
    public long addressOf(final long offset)
    {
        return address + offset;
    }

    /** Whether {@code length} bytes at {@code offset} lie inside the region. */
    public boolean contains(final long offset, final long length)
    {
        return offset >= 0 && length >= 0 && offset <= this.length - length;
    }
}
