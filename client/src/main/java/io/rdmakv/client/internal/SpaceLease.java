package io.rdmakv.client.internal;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.protocol.AllocFailedMessage;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeBatch;
import io.rdmakv.common.protocol.FreeMessage;
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
final class SpaceLease
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
    private AllocFailedMessage refusal;

    SpaceLease(final ControlChannel control, final LaneCounters counters, final NanoClock clock)
    {
        this.control = control;
        this.counters = counters;
        this.clock = clock;
        freeBatch.wrap(control.memory(), LaneBuffers.CONTROL_SEND);
    }

    /**
     * Makes room for a block of {@code length} bytes (ALLOC when the extent is too small); on
     * {@link Status#OK} the block goes at {@link #offset()} and is taken by {@link #commit}.
     */
    int reserve(final int length)
    {
        if (extentEnd - cursor >= length)
        {
            return Status.OK;
        }
        final ControlMessage reply = control.call(new AllocMessage(control.nextRequestId(), length));
        refusal = reply instanceof AllocFailedMessage failed ? failed : null;
        if (reply instanceof AllocOkMessage ok && ok.chunkLength() >= length)
        {
            if (extentEnd > cursor)
            {
                // the unused tail of the old extent is referenced by nothing: give it back
                release(cursor, (int)Math.min(Integer.MAX_VALUE, extentEnd - cursor));
            }
            extentEnd = ok.chunkOffset() + ok.chunkLength();
            cursor = ok.chunkOffset();
            writeRkey = ok.writeRkey();
            return Status.OK;
        }
        return reply == null ? control.failure() : reply instanceof AllocFailedMessage ?
            Status.OUT_OF_SPACE : Status.REMOTE_ERROR;
    }

    /** Why the node refused the last ALLOC (quota or a full node), or null when it did not. */
    AllocFailedMessage refusal()
    {
        return refusal;
    }

    /** Where the block {@link #reserve} made room for goes (a data-area offset). */
    long offset()
    {
        return cursor;
    }

    /**
     * The rkey the block at {@link #offset()} is written with: the one the node named in the ALLOC_OK of the
     * extent (its memory window over exactly that extent, on this session's queue pair). The only place a
     * block WRITE's rkey comes from; reads use the data area's rkey.
     */
    int writeRkey()
    {
        return writeRkey;
    }

    /** The block at {@link #offset()} is now referenced by a slot. */
    void commit(final int length)
    {
        cursor += length;
    }

    /** Queues a superseded block for FREE (sends the batch first when it is full). */
    int release(final long offset, final int length)
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
    int maintain()
    {
        return freeCount > 0 && clock.nanoTime() - freeStamp[freeHead] >= SpaceTiming.FREE_FLUSH_NANOS ?
            flush() : Status.OK;
    }

    /**
     * The janitor's way in: when nobody holds the lane ({@code use} taken without waiting) and it is still
     * {@code usable} (asked under the lock), sends the FREE batch if it is due. Returns false, touching
     * nothing, when the lane is in use (its owner sends the batch before its next operation anyway) or unusable.
     */
    static boolean sendDueIfIdle(final Lock use, final SpaceLease space, final BooleanSupplier usable)
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
    int flush()
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
    int pendingFrees()
    {
        return freeCount;
    }
}
