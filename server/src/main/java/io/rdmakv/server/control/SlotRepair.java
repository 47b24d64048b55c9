package io.rdmakv.server.control;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.RepairReplyMessage;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import io.rdmakv.server.space.IndexAtomics;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * REPAIR: clears a slot whose block is damaged, once the node has proved, on its own memory, that the slot
 * is the damaged slot of the key the client names. A client asks when a PUT or DELETE reached its corruption
 * verdict (the slot's block kept failing validation under an unchanged word); without this such a key could
 * never be written or deleted again.
 *
 * <p><b>The rule.</b> The node clears slot {@code (group, slot)} holding word {@code w} for key {@code k}
 * only if, in this order:
 * <ol>
 *   <li>the group exists and is one of {@code k}'s two candidate groups ({@link KeyHash}): a client can only
 *       ever touch slots its key could live in;</li>
 *   <li>the slot holds {@code w} now, and {@code w}'s fingerprint is {@code k}'s;</li>
 *   <li>{@code w}'s block is damaged ({@link SlotDamage}): outside the data area, a header out of range, a
 *       length other than the word's, or a bad checksum. A whole block is never cleared, so a client cannot
 *       delete a key it could have read, whatever it sends;</li>
 *   <li>the block's key, when readable, is {@code k} or could not live in this slot at all (its fingerprint
 *       or groups do not fit: then the key bytes themselves are damaged). If it names another key that could
 *       live here, the slot is that key's and the REPAIR is refused: {@code k}'s writer has no claim on it;</li>
 *   <li>for a block inside the data area: the node saw the same slot hold the same word with a damaged
 *       block at least one grace period ago (the first REPAIR records the sighting and answers RETRY with the
 *       time left). A referenced block is immutable and freed space waits out the grace period before reuse,
 *       so damage under one word that lasts a grace period is not a replacement in flight, nor a write that
 *       became visible after its CAS (a device with relaxed ordering). A word outside the data area can
 *       name no block at all and is cleared at once;</li>
 *   <li>the node's own look, from reading the slot to the compare-and-swap, took less than half the grace
 *       period (the rule every reader follows): had the slot moved on and come back to {@code w} meanwhile
 *       (ABA), its block would have had to be freed and reused, which takes a whole grace period.</li>
 * </ol>
 * Then the slot goes from {@code w} to 0 through {@link IndexAtomics} (never a CPU store), so a client's
 * concurrent CAS either wins first (the REPAIR answers SLOT_CHANGED) or loses to the repair.
 *
 * <p>The cost of one REPAIR is bounded like an ALLOC's: one hash of at most 1024 key bytes, one slot read,
 * one block check (at most one block, 256 KiB, of CRC-32C), one CAS, and one entry in a table of at most
 * {@value #MAX_SIGHTINGS} sightings (the oldest is dropped when full; the slot then waits again). The
 * damaged block's space is left as it is: it is referenced by nothing now and is reclaimed with the
 * session it was granted to; its bytes cannot be trusted to say how long it was.
 *
 * <p>Agent thread only.
 */
public final class SlotRepair
{
    /** How many damaged (slot, word) sightings are remembered at once. */
    public static final int MAX_SIGHTINGS = 1024;

    private static final System.Logger LOG = System.getLogger(SlotRepair.class.getName());

    private final RegionGeometry geometry;
    private final IndexSegments segments;
    private final IndexAtomics atomics;
    private final SlotDamage damage;
    private final long graceNanos;
    private final ServerCounters counters;
    private final NanoClock clock;
    /** Slot region offset to {word, nanos first seen damaged}, oldest first. */
    private final Map<Long, long[]> sightings = new LinkedHashMap<>();

    /**
     * @param region     the node's region (header, index, data area)
     * @param atomics    how the node changes index words (see {@link IndexAtomics})
     * @param graceNanos the node's grace period before freed space is reused
     */
    public SlotRepair(final MemorySegment region, final RegionGeometry geometry, final IndexAtomics atomics,
        final long graceNanos, final ServerCounters counters, final NanoClock clock)
    {
        this(region, geometry, IndexSegments.whole(geometry), atomics, graceNanos, counters, clock);
    }

    /** As above, keys placed by {@code segments} (the node's applied map's segment table). */
    public SlotRepair(final MemorySegment region, final RegionGeometry geometry, final IndexSegments segments,
        final IndexAtomics atomics, final long graceNanos, final ServerCounters counters, final NanoClock clock)
    {
        this.geometry = geometry;
        this.segments = segments;
        this.atomics = atomics;
        this.damage = new SlotDamage(region, geometry, segments);
        this.graceNanos = graceNanos;
        this.counters = counters;
        this.clock = clock;
    }

    /** Sightings remembered now (tests). */
    public int sightings()
    {
        return sightings.size();
    }

    /** Checks and, when the rule allows, clears the slot; {@code who} names the session in the log. */
    public RepairReplyMessage repair(final RepairMessage request, final String who)
    {
        final long id = request.requestId();
        final long group = request.group();
        if (group >= geometry.groupCount())
        {
            return refused(id, SlotDamage.NONE, RepairRefusal.NO_SUCH_GROUP,
                "group " + group + " is not in the index (" + geometry.groupCount() + " groups)");
        }
        final byte[] key = request.key();
        final long hash = KeyHash.hash(key);
        if (!segments.isCandidateGroup(hash, group))
        {
            return refused(id, SlotDamage.NONE, RepairRefusal.NOT_THE_KEYS_GROUP,
                "group " + group + " is not one of the key's candidate groups");
        }
        final long slotOffset = geometry.slotRegionOffset(group, request.slot());
        final long word = request.word();
        final long start = clock.nanoTime();
        if (atomics.get(slotOffset) != word)
        {
            return refused(id, SlotDamage.NONE, RepairRefusal.SLOT_CHANGED, "the slot no longer holds that word");
        }
        if (!SlotWord.namesBlock(word))
        {
            return refused(id, SlotDamage.NONE, RepairRefusal.NOT_DAMAGED, "the slot names no block");
        }
        if (SlotWord.fingerprint(word) != KeyHash.fingerprint(hash))
        {
            return refused(id, SlotDamage.NONE, RepairRefusal.NOT_THE_KEYS_FINGERPRINT,
                "the word's fingerprint is not the key's");
        }
        final int found = damage.judge(word);
        if (found == SlotDamage.NONE)
        {
            sightings.remove(slotOffset);
            return refused(id, found, RepairRefusal.NOT_DAMAGED, "the block is whole: read it again");
        }
        if (found != SlotDamage.OUTSIDE_DATA_AREA && !damage.keyEquals(key) && damage.keyBelongsAt(group))
        {
            return refused(id, found, RepairRefusal.ANOTHER_KEYS_BLOCK, "the damaged block (" +
                SlotDamage.describe(found) + ") is another key's that could live in this slot: repair that key");
        }
        if (found != SlotDamage.OUTSIDE_DATA_AREA)
        {
            final long waited = sinceFirstSighting(slotOffset, word, start);
            if (waited < graceNanos)
            {
                return retry(id, found, graceNanos - waited, "damage (" + SlotDamage.describe(found) +
                    ") not yet seen for a grace period");
            }
        }
        if (clock.nanoTime() - start >= graceNanos / 2)
        {
            return retry(id, found, 0, "the node's own check took too long to trust");
        }
        // a frozen slot stays frozen: emptied, it becomes the bare bit, which no insert may take
        if (atomics.compareAndSwap(slotOffset, word, word & SlotWord.MOVING) != word)
        {
            return refused(id, found, RepairRefusal.SLOT_CHANGED, "the slot changed while the node looked");
        }
        sightings.remove(slotOffset);
        counters.increment(ServerCounter.REPAIRED_SLOTS);
        LOG.log(System.Logger.Level.WARNING, "repaired a damaged slot for " + who + ": group " + group + " slot " +
            request.slot() + " held " + SlotWord.toString(word) + " (" + SlotDamage.describe(found) +
            "), now empty");
        return RepairReplyMessage.repaired(id, found, "slot cleared (" + SlotDamage.describe(found) + ")");
    }

    /** How long ago the slot was first seen damaged under {@code word}; records now when it was not. */
    private long sinceFirstSighting(final long slotOffset, final long word, final long now)
    {
        final long[] seen = sightings.get(slotOffset);
        if (seen != null && seen[0] == word)
        {
            return now - seen[1];
        }
        sightings.remove(slotOffset);
        if (sightings.size() >= MAX_SIGHTINGS)
        {
            final Iterator<long[]> oldest = sightings.values().iterator();
            oldest.next();
            oldest.remove();
        }
        sightings.put(slotOffset, new long[] {word, now});
        return 0;
    }

    private RepairReplyMessage refused(final long id, final int found, final RepairRefusal why, final String text)
    {
        counters.increment(ServerCounter.REFUSED_REPAIRS);
        return RepairReplyMessage.refused(id, found, why, why + ": " + text);
    }

    private RepairReplyMessage retry(final long id, final int found, final long waitNanos, final String text)
    {
        counters.increment(ServerCounter.DEFERRED_REPAIRS);
        final long millis = waitNanos <= 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(waitNanos) + 1;
        return RepairReplyMessage.retry(id, found, (int)Math.min(Integer.MAX_VALUE, millis),
            text + ": ask again in " + millis + " ms");
    }
}
