package io.rdmakv.client.internal.op;

import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.KvBlock;

import java.lang.foreign.MemorySegment;

/**
 * What the last operation on a lane produced besides its status: the key's version (its slot word)
 * after a GET or a write, and after a GET the value, in the lane's read buffer. One per lane, reused.
 */
public final class LaneResult
{
    private final KvBlock block;
    private long version;
    private int status;

    LaneResult(final KvBlock readBlock)
    {
        this.block = readBlock;
    }

    /** How the operation ended: {@link Status#OK}, {@link Status#NOT_FOUND} or {@link Status#CONFLICT}. */
    public int status()
    {
        return status;
    }

    /** Records how the operation whose result this is ended (the operation template, once it ends); this. */
    public LaneResult withStatus(final int status)
    {
        this.status = status;
        return this;
    }

    /** The key's version now: the slot word a GET saw or a write installed. */
    public long version()
    {
        return version;
    }

    /** After a GET: the memory the value is in, at {@link #valueOffset()}. */
    public MemorySegment valueSegment()
    {
        return block.segment();
    }

    public long valueOffset()
    {
        return block.valueOffset();
    }

    public int valueLength()
    {
        return block.valueLength();
    }

    /** After a GET that found the key: the map epoch (low 32 bits) its block was written under (0: none). */
    public int writerEpoch()
    {
        return block.writerEpoch();
    }

    int version(final long word)
    {
        version = word;
        return Status.OK;
    }
}
