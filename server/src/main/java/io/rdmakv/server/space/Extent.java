package io.rdmakv.server.space;

/** A byte range of the data area: {@code [offset, offset + length)}, both multiples of the block alignment. */
public record Extent(long offset, long length)
{
    public long end()
    {
        return offset + length;
    }
}
