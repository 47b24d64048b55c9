package io.rdmakv.server.space;

import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.FreeMessage;

/**
 * One FREE message being checked and applied a bounded number of units at a time, so that no FREE holds
 * the control thread for long: {@link #step} does at most its budget of work (a unit is one 64-byte header
 * read; deciding an entry costs at least one) and the agent calls it again in later duty cycles until
 * {@link #done()}. Each entry is judged on its own (a refused entry does not refuse the others), by the
 * first rule it breaks:
 *
 * <ol>
 * <li>{@link Verdict#NOT_GRANTED}: aligned, inside the data area and inside one granted range (not free,
 *     not waiting, not freed twice, not never granted).</li>
 * <li>{@link Verdict#FOREIGN}: the range is granted to the sender; or it is exactly one well-formed block
 *     of another session (or of a departed one: {@link DataAreaAllocator#NO_OWNER}) that lies outside
 *     that session's {@linkplain DataAreaAllocator#latestGrant latest extent}. A client frees blocks it
 *     superseded, and another client may have written them; but a block only becomes referenced through
 *     its writer's commit CAS, which happens while the block is in flight, and a writer carves blocks
 *     only from its latest extent and finishes an operation before it asks for the next extent. So an
 *     unreferenced block outside its writer's latest extent is garbage for good, whoever names it and
 *     however late. One dead-looking block inside that latest extent is not refused but
 *     {@link Verdict#DEFERRED}: handed to the {@link Deferral}, which frees it once its owner has moved on
 *     to another extent (a client frees what it superseded exactly once, so dropping it would leak it).
 *     Anything else of another session's (the unused tail of its extent, a range that is not one block)
 *     is refused.</li>
 * <li>{@link Verdict#LIVE}: no slot references a block overlapping the range, its tail included (the
 *     units of the range, and up to one largest block before it within the same granted range).</li>
 * </ol>
 *
 * Then the range is released into the grace period, if it is still granted to the same owner (the
 * allocator may have changed between steps: a departure, another FREE).
 *
 * <p>With memory windows ({@code deferOwnLatest}), a range inside the sender's own latest extent is
 * {@link Verdict#DEFERRED} too, whatever its shape: that extent is writable through the sender's window
 * until it moves on, so none of it may become grantable to anyone before then. The deferred entry is
 * judged by these rules once it has (as the owner's own, outside its latest extent).
 */
public final class FreeJob
{
    /** What became of one entry. */
    public enum Verdict
    {
        FREED,
        NOT_GRANTED,
        FOREIGN,
        LIVE,
        DEFERRED
    }

    /** Where a block of another session's latest extent goes until that session moves on. */
    @FunctionalInterface
    public interface Deferral
    {
        void defer(long owner, long offset, int length);
    }

    private static final int UNIT = KvBlockDescriptor.ALIGNMENT;

    private final DataAreaAllocator allocator;
    private final LiveBlockCheck liveBlocks;
    private final long sender;
    private final FreeMessage message;
    private final Deferral deferral;
    private final boolean deferOwnLatest;
    private final int[] verdicts = new int[Verdict.values().length];
    private int entry;
    private long owner = -1;
    private long cursor;

    /** A job without deferral: a block of another session's latest extent is refused as foreign. */
    public FreeJob(final DataAreaAllocator allocator, final LiveBlockCheck liveBlocks, final long sender,
        final FreeMessage message)
    {
        this(allocator, liveBlocks, sender, message, null);
    }

    public FreeJob(final DataAreaAllocator allocator, final LiveBlockCheck liveBlocks, final long sender,
        final FreeMessage message, final Deferral deferral)
    {
        this(allocator, liveBlocks, sender, message, deferral, false);
    }

    /**
     * @param deferOwnLatest defer (to {@code deferral}, which must be given) ranges inside the sender's own
     *                       latest extent: the node writes grants through memory windows
     */
    public FreeJob(final DataAreaAllocator allocator, final LiveBlockCheck liveBlocks, final long sender,
        final FreeMessage message, final Deferral deferral, final boolean deferOwnLatest)
    {
        if (deferOwnLatest && deferral == null)
        {
            throw new IllegalArgumentException("deferring frees of the sender's latest extent needs a deferral");
        }
        this.deferOwnLatest = deferOwnLatest;
        this.deferral = deferral;
        this.allocator = allocator;
        this.liveBlocks = liveBlocks;
        this.sender = sender;
        this.message = message;
    }

    /** True once every entry has a verdict. */
    public boolean done()
    {
        return entry == message.count();
    }

    /** Entries that got {@code verdict} so far. */
    public int count(final Verdict verdict)
    {
        return verdicts[verdict.ordinal()];
    }

    /** The message's request id. */
    public long requestId()
    {
        return message.requestId();
    }

    /**
     * Judges entries until done or {@code budgetUnits} units are spent; returns the units spent (at least
     * one while not done, at most {@code max(1, budgetUnits)}).
     */
    public long step(final long budgetUnits, final long nowNanos)
    {
        long spent = 0;
        while (!done() && (spent == 0 || spent < budgetUnits))
        {
            final long offset = message.offset(entry);
            final long length = message.length(entry);
            if (owner < 0)
            {
                spent++;
                final Verdict admitted = admit(offset, length);
                if (admitted != null)
                {
                    decide(admitted);
                    continue;
                }
                if (spent >= budgetUnits)
                {
                    break;
                }
            }
            final long end = offset + length;
            final long units = Math.min((end - cursor) / UNIT, Math.max(1, budgetUnits - spent));
            final long to = cursor + units * UNIT;
            spent += units;
            if (liveBlocks.overlapsLiveBlock(cursor, to, offset))
            {
                decide(Verdict.LIVE);
                continue;
            }
            cursor = to;
            if (cursor >= end)
            {
                decide(allocator.ownerOf(offset, length) == owner && allocator.release(offset, length, nowNanos) ?
                    Verdict.FREED : Verdict.NOT_GRANTED);
            }
        }
        return spent;
    }

    /** Rules 1 and 2; null when the entry may go on to the live-block check (then owner and cursor are set). */
    private Verdict admit(final long offset, final long length)
    {
        final long holder = allocator.ownerOf(offset, length);
        if (holder < 0)
        {
            return Verdict.NOT_GRANTED;
        }
        if (holder == sender && deferOwnLatest && overlaps(allocator.latestGrant(sender), offset, length))
        {
            deferral.defer(sender, offset, (int)length);
            return Verdict.DEFERRED;
        }
        if (holder != sender)
        {
            final Extent latest = holder == DataAreaAllocator.NO_OWNER ? null : allocator.latestGrant(holder);
            if (length > SlotWord.MAX_BLOCK_LENGTH || liveBlocks.blockLengthAt(offset) != length)
            {
                return Verdict.FOREIGN;
            }
            if (overlaps(latest, offset, length))
            {
                if (deferral == null)
                {
                    return Verdict.FOREIGN;
                }
                deferral.defer(holder, offset, (int)length);
                return Verdict.DEFERRED;
            }
        }
        owner = holder;
        cursor = LiveBlockCheck.lookbackStart(offset, allocator.grantedRangeStart(offset));
        return null;
    }

    private static boolean overlaps(final Extent extent, final long offset, final long length)
    {
        return extent != null && offset + length > extent.offset() && offset < extent.end();
    }

    private void decide(final Verdict verdict)
    {
        verdicts[verdict.ordinal()]++;
        entry++;
        owner = -1;
    }
}
