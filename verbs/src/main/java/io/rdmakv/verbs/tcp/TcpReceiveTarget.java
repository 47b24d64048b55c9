package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.verbs.tcp.TcpWire.ALL_MEMORY;

/**
 * Where an incoming SEND lands: a copy of the posted receive it consumed (its wr_id and scatter list,
 * checked against the protection domain once), and how far the payload has got. A copy, so that the
 * application may post into the freed ring slot while the payload still arrives.
 */
final class TcpReceiveTarget
{
    /** {@link #take}: no receive is posted (receiver not ready). */
    static final int NONE = -1;

    private final long[] sgeAddr = new long[TcpContext.ATTRIBUTES.maxSge()];
    private final long[] sgeLength = new long[TcpContext.ATTRIBUTES.maxSge()];
    private int numSge;
    private long wrId;
    private long length;
    private long done;
    private int sge;
    private long offset;

    /**
     * How long a SEND waits for a receive: as long as the requester keeps retrying, its rnr_retry plus one
     * times our min_rnr_timer (rnr_retry 7, "for ever", is the caller's to handle).
     */
    static long rnrBudgetNanos(final ConnectOptions options, final int requesterRnrRetry)
    {
        return TimeUnit.MICROSECONDS.toNanos(
            ConnectOptions.minRnrTimerMicros(options.minRnrTimer()) * (requesterRnrRetry + 1L));
    }

    /**
     * Takes the oldest posted receive of {@code rq} for a SEND of {@code len} bytes. Returns {@link #NONE}
     * when none is posted; otherwise the receive is consumed and the result is the {@link WcStatus} code of
     * its completion: SUCCESS, LOC_PROT_ERR (an entry outside a region with local write access) or
     * LOC_LEN_ERR (the SEND is longer than the scatter list).
     */
    int take(final TcpReceiveQueue rq, final TcpProtectionDomain pd, final long len)
    {
        synchronized (rq)
        {
            if (rq.isEmpty())
            {
                return NONE;
            }
            final int slot = rq.peek();
            wrId = rq.wrId(slot);
            numSge = rq.numSge(slot);
            for (int s = 0; s < numSge; s++)
            {
                sgeAddr[s] = rq.sgeAddr(slot, s);
                sgeLength[s] = Integer.toUnsignedLong(rq.sgeLength(slot, s));
                final TcpMemoryRegion mr = pd.lookup(rq.sgeLkey(slot, s));
                if (mr == null || !mr.allows(AccessFlags.LOCAL_WRITE) || !mr.contains(sgeAddr[s], sgeLength[s]))
                {
                    numSge = -1;
                }
            }
            rq.remove();
        }
        if (numSge < 0)
        {
            return WcStatus.LOC_PROT_ERR.code();
        }
        long capacity = 0;
        for (int s = 0; s < numSge; s++)
        {
            capacity += sgeLength[s];
        }
        if (len > capacity)
        {
            return WcStatus.LOC_LEN_ERR.code();
        }
        length = len;
        done = 0;
        sge = 0;
        offset = 0;
        return WcStatus.SUCCESS.code();
    }

    long wrId()
    {
        return wrId;
    }

    /** The SEND's length. */
    long length()
    {
        return length;
    }

    /** Payload bytes still to land. */
    long remaining()
    {
        return length - done;
    }

    /** Lands up to {@code available} payload bytes from {@code from} at {@code position}; returns how many. */
    int land(final MemorySegment from, final int position, final int available)
    {
        while (offset == sgeLength[sge])
        {
            sge++;
            offset = 0;
        }
        final int k = (int)Math.min(available, Math.min(length - done, sgeLength[sge] - offset));
        MemorySegment.copy(from, position, ALL_MEMORY, sgeAddr[sge] + offset, k);
        offset += k;
        done += k;
        return k;
    }
}
