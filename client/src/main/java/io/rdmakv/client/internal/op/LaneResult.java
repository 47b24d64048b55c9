package io.rdmakv.client.internal.op;

import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;

/**
 * What the last operation on a lane produced besides its status: the key's version (its slot word)
 * after a GET or a write, and after a GET the value, in the lane's read buffer. One per lane, reused.
 */
public final class LaneResult
{
    private final KvBlock block;
    private long version;
    private long word;
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

    /**
     * The key's version now ({@code KvClient#getVersioned}): after a GET, the origin of the block it read when that
     * block was copied in a partition move, else the slot word it saw (without {@code MOVING}) XOR the placement's
     * salt ({@link io.rdmakv.common.layout.VersionSalt}); after a write, the word it installed, salted.
     */
    public long version()
    {
        return version;
    }

    /** The slot word itself (without {@code MOVING}) a GET saw or a write installed: what the node's index holds. */
    public long word()
    {
        return word;
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

    /** A write installed {@code word} in a placement salted {@code salt}. */
    int version(final long word, final long salt)
    {
        this.word = word;
        version = word ^ salt;
        return Status.OK;
    }

    /** A GET read the block in the read buffer through slot word {@code word} ({@link KvBlock#version}). */
    int readVersion(final long word, final long salt)
    {
        this.word = SlotWord.withoutMoving(word);
        version = block.version(word, salt);
        return Status.OK;
    }
}
