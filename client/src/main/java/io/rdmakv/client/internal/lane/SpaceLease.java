package io.rdmakv.client.internal.lane;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.wire.FreeBatch;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.peer.Status;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;

/**
 * A lane's share of a node's data area, and the control calls that move it: the extent new blocks are
 * carved from (ALLOC when it runs out), and the batch of superseded blocks given back (FREE, sent when
 * full or once its oldest entry waited {@link SpaceTiming#FREE_FLUSH_NANOS}: by the lane before its next
 * operation, or by the client's janitor while the lane is idle, {@link #sendDueIfIdle}). No entry is ever
 * dropped, however old: a late FREE is safe (see {@link SpaceTiming}). The data path calls only this
 * object; it never calls back into the session. Used by one thread at a time, the one holding the
 * session; allocation-free except for the ALLOC reply record.
 */
public final class SpaceLease
{
    private final ControlChannel control;
    private final LaneCounters counters;
    private final NanoClock clock;
    private final FreeBatch freeBatch = new FreeBatch();
    private final long[] freeOffset = new long[FreeMessage.MAX_ENTRIES];
    private final int[] freeLength = new int[FreeMessage.MAX_ENTRIES];
    private final long[] freeStamp = new long[FreeMessage.MAX_ENTRIES];
    private int freeCount;
    private int freeHead;
    private long extentEnd;
    private long cursor;
    private int writeRkey;
    private final long sessionId;
    private long extentOffset;
    private long extentLength;
    private long grantSecret;
    private long reserved;
    private long batchOffset;
    private CodedRefusalMessage refusal;

    /** @param sessionId the session's id on its node (HELLO_OK), which the other replicas' windows are bound for */
    public SpaceLease(final ControlChannel control, final LaneCounters counters, final NanoClock clock,
        final long sessionId)
    {
        this.sessionId = sessionId;
        this.control = control;
        this.counters = counters;
        this.clock = clock;
        freeBatch.wrap(control.memory(), control.sendOffset());
    }

    /**
     * Makes room for a block of {@code length} bytes (ALLOC when the extent is too small); on
     * {@link Status#OK} the block goes at {@link #offset()} and is taken by {@link #commit}.
     */
    public int reserve(final int length)
    {
        if (extentEnd - cursor >= length)
        {
            return Status.OK;
        }
        final ControlMessage reply = control.call(new AllocMessage(control.nextRequestId(), length));
        refusal = CodedRefusalMessage.as(MessageType.ALLOC_FAILED, reply);
        if (reply instanceof AllocOkMessage ok && usable(ok, length))
        {
            if (extentEnd > cursor)
            {
                // the unused tail of the old extent is referenced by nothing: give it back
                release(cursor, (int)Math.min(Integer.MAX_VALUE, extentEnd - cursor));
            }
            extentEnd = ok.chunkOffset() + ok.chunkLength();
            cursor = ok.chunkOffset();
            writeRkey = ok.writeRkey();
            extentOffset = ok.chunkOffset();
            extentLength = ok.chunkLength();
            grantSecret = ok.grantSecret();
            return Status.OK;
        }
        return reply == null ? control.failure() : refusal != null ?
            Status.OUT_OF_SPACE : Status.REMOTE_ERROR;
    }

    /**
     * Whether a granted extent can take a block of {@code length} bytes and be named by slot words: its
     * offset a multiple of {@link SlotWord#UNIT}, at least the first unit, and its end within
     * {@link SlotWord#MAX_DATA_LENGTH}. A node that grants anything else gets the operation REMOTE_ERROR, not an
     * exception from {@link SlotWord#encodeBlock} on the caller's thread.
     */
    private static boolean usable(final AllocOkMessage ok, final int length)
    {
        final long offset = ok.chunkOffset();
        return ok.chunkLength() >= length && (offset & (SlotWord.UNIT - 1)) == 0 &&
            offset >= SlotWord.FIRST_OFFSET_UNIT * SlotWord.UNIT &&
            ok.chunkLength() <= SlotWord.MAX_DATA_LENGTH - offset;
    }

    /** Why the node refused the last ALLOC (quota or a full node), or null when it did not. */
    public CodedRefusalMessage refusal()
    {
        return refusal;
    }

    /** Where the block {@link #reserve} made room for goes (a data-area offset). */
    public long offset()
    {
        return cursor;
    }

    /**
     * The rkey the block at {@link #offset()} is written with: the one the node named in the ALLOC_OK of the
     * extent (its memory window over exactly that extent, on this session's queue pair). The only place a
     * block WRITE's rkey comes from; reads use the data area's rkey.
     */
    public int writeRkey()
    {
        return writeRkey;
    }

    /** The session's id on its node. */
    public long sessionId()
    {
        return sessionId;
    }

    /** Where the latest extent starts (a data-area offset). */
    public long extentOffset()
    {
        return extentOffset;
    }

    public long extentLength()
    {
        return extentLength;
    }

    /**
     * The latest grant's secret: what the other replicas of a replicated group bind this session's windows over
     * the extent with ({@link ReplicaWindow}); 0 when the node's grants are mirrored by no replica.
     */
    public long grantSecret()
    {
        return grantSecret;
    }

    /** The block at {@link #offset()} is now referenced by a slot. */
    public void commit(final int length)
    {
        cursor += length;
    }

    // ---- a batch's blocks: several reservations in flight, settled together --------------------

    /**
     * True when a batch's next block of {@code length} bytes can follow the blocks it reserved already in this
     * extent (its first block always can: {@link #reserveNext} ALLOCs for it). A batch stops at the first block
     * that does not fit, so that all of its blocks share one extent and one {@link #writeRkey()}.
     */
    public boolean fitsNext(final int length)
    {
        return reserved == 0 || extentEnd - cursor - reserved >= length;
    }

    /**
     * Reserves a batch's next block (after {@link #fitsNext} said it fits): on {@link Status#OK} it goes at
     * {@link #batchOffset()}. The batch ends with {@link #settle} or, when the lane failed, {@link #abandon}.
     */
    public int reserveNext(final int length)
    {
        if (reserved == 0)
        {
            final int rc = reserve(length);
            if (rc != Status.OK)
            {
                return rc;
            }
        }
        batchOffset = cursor + reserved;
        reserved += length;
        return Status.OK;
    }

    /** Where the block {@link #reserveNext} reserved last goes. */
    public long batchOffset()
    {
        return batchOffset;
    }

    /**
     * Ends a batch whose blocks {@code 0 .. count - 1} are at {@code offsets} with {@code lengths}, in the
     * order they were reserved; {@code committed[j]} says whether a slot now names block {@code j}. The space
     * up to the last committed block is taken; each block before it that no slot names goes to FREE (it was
     * written but never referenced, so nobody can read it); the blocks after it are reused by the next write,
     * as a single PUT reuses its lost block.
     */
    public int settle(final long[] offsets, final int[] lengths, final boolean[] committed, final int count)
    {
        reserved = 0;
        int last = -1;
        for (int j = 0; j < count; j++)
        {
            if (committed[j])
            {
                last = j;
            }
        }
        if (last < 0)
        {
            return Status.OK;
        }
        cursor = offsets[last] + lengths[last];
        int rc = Status.OK;
        for (int j = 0; j < last; j++)
        {
            if (!committed[j] && rc == Status.OK)
            {
                rc = release(offsets[j], lengths[j]);
            }
        }
        return rc;
    }

    /**
     * Ends a batch whose outcome is unknown (the lane failed while its CASes were in flight): every block it
     * reserved may be referenced, so none is reused or freed.
     */
    public void abandon()
    {
        cursor += reserved;
        reserved = 0;
    }

    /** Queues a superseded block for FREE (sends the batch first when it is full). */
    public int release(final long offset, final int length)
    {
        if (freeCount == freeOffset.length)
        {
            final int rc = flush();
            if (rc != Status.OK)
            {
                return rc;
            }
        }
        final int i = (freeHead + freeCount) % freeOffset.length;
        freeOffset[i] = offset;
        freeLength[i] = length;
        freeStamp[i] = clock.nanoTime();
        freeCount++;
        return Status.OK;
    }

    /** Sends the FREE batch when its oldest entry has waited {@link SpaceTiming#FREE_FLUSH_NANOS}. */
    public int maintain()
    {
        return freeCount > 0 && clock.nanoTime() - freeStamp[freeHead] >= SpaceTiming.FREE_FLUSH_NANOS ?
            flush() : Status.OK;
    }

    /**
     * The janitor's way in: when nobody holds the lane ({@code use} taken without waiting) and it is still
     * {@code usable} (asked under the lock), sends the FREE batch if it is due. Returns false, touching
     * nothing, when the lane is in use (its owner sends the batch before its next operation anyway) or unusable.
     */
    public static boolean sendDueIfIdle(final Lock use, final SpaceLease space, final BooleanSupplier usable)
    {
        if (!use.tryLock())
        {
            return false;
        }
        try
        {
            if (!usable.getAsBoolean())
            {
                return false;
            }
            space.maintain();
            return true;
        }
        finally
        {
            use.unlock();
        }
    }

    /** Sends every pending FREE, however old. */
    public int flush()
    {
        while (freeCount > 0)
        {
            freeBatch.reset(control.nextRequestId());
            int n = 0;
            while (n < freeCount && freeBatch.add(freeOffset[(freeHead + n) % freeOffset.length],
                freeLength[(freeHead + n) % freeLength.length]))
            {
                n++;
            }
            final int rc = control.send(freeBatch.length());
            if (rc != Status.OK)
            {
                return rc;
            }
            freeHead = (freeHead + n) % freeOffset.length;
            freeCount -= n;
        }
        return Status.OK;
    }

    /** FREE entries not yet sent. */
    public int pendingFrees()
    {
        return freeCount;
    }
}
