package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.chain.ReplicaChain;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import io.rdmakv.peer.Status;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.RepairReplyMessage;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A PUT or DELETE whose search reached the corruption verdict ({@link BlockSearch.Outcome#CORRUPTED}) asks
 * the node to clear the suspect slot (REPAIR over the {@link ControlChannel}, like ALLOC), naming the slot,
 * the word it saw and the staged key; the node proves on its own memory that the slot is this key's and its
 * block damaged before it clears it (see the node's {@code SlotRepair}). A GET never asks: the value is gone,
 * and a GET keeps reporting {@link Status#CORRUPTED} until a writer repairs the key.
 *
 * <p><b>In a replicated group</b> the slot is cleared along the chain in a write's order: each backup first
 * (chain order), then the primary, each node proving the damage on its own memory, as a DELETE would clear it,
 * so no backup is ever behind the primary. A backup whose copy of the block is whole (NOT_DAMAGED) stops it:
 * the key is reported corrupted, saying so, and the primary's scrub rewrites the primary's copy from that
 * backup's. A backup whose slot holds another word (a write in flight) sends the caller to search again. A
 * repair cut short after some backups leaves them one step ahead of the primary, as a DELETE cut short does
 * (the primary's scrub puts them back). Copying nodes get no REPAIR: they copy the primary's slots.
 *
 * <p>A node answers RETRY until the damage has lasted a grace period; this waits (parks) as long as it
 * says, within one control-channel timeout for the whole chain. Control path: allocates the request and the key
 * copy.
 */
final class DamageRepair
{
    /** The node cleared the slot: the key is absent there now. */
    static final int REPAIRED = Status.OK;
    /** The slot changed, or its block is whole after all: search again. */
    static final int SEARCH_AGAIN = 1;
    /** {@link #ask}: that node's copy of the block is whole (NOT_DAMAGED). */
    private static final int REFUSED_WHOLE = 2;

    /** How many RETRY answers one repair waits through at most. */
    private static final int MAX_RETRIES = 64;

    private final ControlChannel control;
    private final KeyLocation key;
    private final BlockSearch search;
    private final MemorySegment mem;
    private final LaneCounters counters;
    private final NanoClock clock;
    private String lastRefusal = "";

    private final ReplicaChain chain;

    DamageRepair(final ControlChannel control, final KeyLocation key, final BlockSearch search,
        final MemorySegment mem, final LaneCounters counters, final NanoClock clock, final ReplicaChain chain)
    {
        this.chain = chain;
        this.control = control;
        this.key = key;
        this.search = search;
        this.mem = mem;
        this.counters = counters;
        this.clock = clock;
    }

    /**
     * After {@link BlockSearch.Outcome#CORRUPTED}: asks the node to repair the suspect slot; in a replicated
     * group, each backup first, in chain order, then the primary (see the class comment).
     *
     * @return {@link #REPAIRED}, {@link #SEARCH_AGAIN}, {@link Status#CORRUPTED} when a node refused (the
     *     slot is not provably this key's, or a backup holds the block whole) or kept saying RETRY past the
     *     timeout, or a lane failure
     */
    int repair()
    {
        final int candidate = search.suspectCandidate();
        final long word = search.suspectWord();
        final long group = key.group(candidate);
        final int slot = candidate % BucketDescriptor.SLOTS_PER_GROUP;
        final byte[] keyBytes = mem.asSlice(LaneBuffers.KEY, key.keyLength()).toArray(ValueLayout.JAVA_BYTE);
        // one deadline for the whole chain: RETRY answers of every node together wait at most one control timeout
        final long deadline = clock.nanoTime() + control.timeoutNanos();
        for (int i = 0; i < chain.backupCount(); i++)
        {
            final int rc = ask(chain.backupControl(i), group, slot, word, keyBytes, deadline);
            if (rc == REFUSED_WHOLE)
            {
                lastRefusal = "backup " + (i + 1) + " of the key's group holds the block whole: the primary's " +
                    "scrub rewrites the primary's copy from it (at its next pass, or kvctl scrub)";
                return Status.CORRUPTED;
            }
            if (rc != REPAIRED)
            {
                return rc;
            }
        }
        final int rc = ask(control, group, slot, word, keyBytes, deadline);
        if (rc == REFUSED_WHOLE)
        {
            search.forgetSuspect();
            return SEARCH_AGAIN;
        }
        if (rc == REPAIRED)
        {
            counters.increment(ClientCounter.REPAIRED_SLOTS);
            search.forgetSuspect();
        }
        return rc;
    }

    /**
     * One node's REPAIR of {@code (group, slot)} from {@code word}, waiting out its RETRY answers until {@code
     * deadline}: {@link #REPAIRED},
     * {@link #REFUSED_WHOLE} (its copy of the block is whole), {@link #SEARCH_AGAIN} (its slot changed),
     * {@link Status#CORRUPTED} (refused otherwise, or RETRY past the timeout) or the channel's failure.
     */
    private int ask(final ControlChannel channel, final long group, final int slot, final long word,
        final byte[] keyBytes, final long deadline)
    {
        for (int retries = 0; retries <= MAX_RETRIES; retries++)
        {
            final ControlMessage reply =
                channel.call(new RepairMessage(channel.nextRequestId(), group, slot, word, keyBytes));
            if (reply == null)
            {
                return channel.failure();
            }
            if (!(reply instanceof RepairReplyMessage answer))
            {
                return Status.REMOTE_ERROR;
            }
            switch (answer.outcome())
            {
                case REPAIRED ->
                {
                    return REPAIRED;
                }
                case REFUSED ->
                {
                    final RepairRefusal why = answer.refusal();
                    if (why == RepairRefusal.NOT_DAMAGED)
                    {
                        return REFUSED_WHOLE;
                    }
                    if (why == RepairRefusal.SLOT_CHANGED)
                    {
                        search.forgetSuspect();
                        return SEARCH_AGAIN;
                    }
                    lastRefusal = answer.text();
                    return Status.CORRUPTED;
                }
                case RETRY ->
                {
                    final long wait = TimeUnit.MILLISECONDS.toNanos(answer.retryAfterMillis());
                    if (clock.nanoTime() + wait > deadline)
                    {
                        lastRefusal = answer.text();
                        return Status.CORRUPTED;
                    }
                    if (wait > 0)
                    {
                        LockSupport.parkNanos(wait);
                    }
                }
            }
        }
        return Status.CORRUPTED;
    }

    /** A new operation: no refusal to report yet. */
    void forget()
    {
        lastRefusal = "";
    }

    /** Why the last repair was refused or gave up, as the node said it (empty when none was). */
    String lastRefusal()
    {
        return lastRefusal;
    }
}
