package io.rdmakv.client.internal.chain;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.peer.Status;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelpMessage;
import io.rdmakv.common.protocol.HelpReplyMessage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A write chain lost at the first backup to a word the primary does not hold yet: its writer is between
 * its backup CAS and its primary CAS, or died there. Whether it can still finish is the primary's to say
 * (only it knows whether that writer's session still owns the block), so this asks it (HELP over the
 * lane's {@link ControlChannel}): the node finishes the write when the block is a live session's whole
 * block of this key ({@link Outcome#HELPED}); otherwise the writer is gone and fenced, and the caller puts
 * the backups back ({@link Outcome#REFUSED}). Rare, so control path: allocates the request.
 */
public final class StuckWrite
{
    enum Outcome
    {
        HELPED,
        REFUSED,
        CHANGED,
        FAILED
    }

    private final ControlChannel control;
    private final KeyLocation key;
    private final MemorySegment mem;
    private final LaneCounters counters;
    private long slot;
    private int failure;

    public StuckWrite(final ControlChannel control, final KeyLocation key, final MemorySegment mem,
        final LaneCounters counters)
    {
        this.control = control;
        this.key = key;
        this.mem = mem;
        this.counters = counters;
    }

    /** Asks the primary to finish the write of {@code word} over {@code expected} at {@code slotAddress}. */
    Outcome help(final long slotAddress, final long expected, final long word)
    {
        int candidate = -1;
        for (int c = 0; c < KeyLocation.CANDIDATES; c++)
        {
            if (key.slotAddress(c) == slotAddress)
            {
                candidate = c;
                break;
            }
        }
        if (candidate < 0)
        {
            failure = Status.REMOTE_ERROR;
            return Outcome.FAILED;
        }
        counters.increment(ClientCounter.CHAIN_HELPS);
        final byte[] keyBytes = mem.asSlice(LaneBuffers.KEY, key.keyLength()).toArray(ValueLayout.JAVA_BYTE);
        final ControlMessage reply = control.call(new HelpMessage(control.nextRequestId(), key.group(candidate),
            candidate % io.rdmakv.common.layout.BucketDescriptor.SLOTS_PER_GROUP, expected, word, keyBytes));
        if (reply == null)
        {
            failure = control.failure();
            return Outcome.FAILED;
        }
        if (!(reply instanceof HelpReplyMessage answer))
        {
            failure = Status.REMOTE_ERROR;
            return Outcome.FAILED;
        }
        slot = answer.slot();
        return switch (answer.outcome())
        {
            case HELPED -> Outcome.HELPED;
            case REFUSED -> Outcome.REFUSED;
            case CHANGED -> Outcome.CHANGED;
        };
    }

    /** The primary's slot word the node last reported. */
    long slot()
    {
        return slot;
    }

    int failure()
    {
        return failure;
    }
}
