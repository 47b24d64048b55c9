package io.rdmakv.server.control;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.DamageScanOkMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.server.space.IndexAtomics;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * DAMAGE_SCAN: one page of the damaged-slot listing ({@code kvctl damaged}). Walks bucket groups from where
 * the client asks, judges every used slot's block ({@link SlotDamage}) and lists the damaged ones with their
 * readable key bytes; the client asks again from {@code next_group} until the index is done.
 *
 * <p>Bounded work per request, so that a listing never stalls the control plane: at most {@value
 * #MAX_GROUPS} groups, and the page ends after the group in which the blocks checked passed {@value
 * #MAX_CHECKED_BYTES} bytes (or when the next group's entries would not fit in one message). Nothing is
 * cached and nothing changes: a slot that changed while it was judged is left out (its block may have been
 * replaced), so the listing is of slots seen damaged under a stable word.
 *
 * <p>Agent thread only.
 */
public final class DamageScan
{
    /** The most groups one page looks at. */
    public static final int MAX_GROUPS = 1024;
    /** Block bytes one page checks before it ends (at a group boundary). */
    public static final long MAX_CHECKED_BYTES = 1L << 20;

    private final RegionGeometry geometry;
    private final IndexAtomics atomics;
    private final SlotDamage damage;
    private final ServerCounters counters;
    private final List<DamageScanOkMessage.Entry> group = new ArrayList<>(BucketDescriptor.SLOTS_PER_GROUP);

    public DamageScan(final MemorySegment region, final RegionGeometry geometry, final IndexAtomics atomics,
        final ServerCounters counters)
    {
        this.geometry = geometry;
        this.atomics = atomics;
        this.damage = new SlotDamage(region, geometry);
        this.counters = counters;
    }

    /** One page of the listing. */
    public DamageScanOkMessage scan(final DamageScanMessage request)
    {
        counters.increment(ServerCounter.DAMAGE_SCANS);
        final long groups = geometry.groupCount();
        final long from = Math.min(request.fromGroup(), groups);
        final long end = Math.min(groups, from + Math.min(request.maxGroups(), MAX_GROUPS));
        final List<DamageScanOkMessage.Entry> entries = new ArrayList<>();
        int length = DamageScanOkMessage.ENTRIES_OFFSET;
        long checked = 0;
        long g = from;
        while (g < end && checked < MAX_CHECKED_BYTES)
        {
            group.clear();
            int groupLength = 0;
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long offset = geometry.slotRegionOffset(g, s);
                final long word = atomics.get(offset);
                if (!SlotWord.namesBlock(word))
                {
                    continue; // empty, or frozen empty
                }
                final int found = damage.judge(word);
                if (found != SlotDamage.OUTSIDE_DATA_AREA)
                {
                    checked += SlotWord.blockLength(word);
                }
                if (found != SlotDamage.NONE && atomics.get(offset) == word)
                {
                    final DamageScanOkMessage.Entry entry = new DamageScanOkMessage.Entry(g, s, word, found,
                        damage.readableKeyLength(), damage.keyBytes(DamageScanOkMessage.MAX_KEY_SHOWN));
                    group.add(entry);
                    groupLength += entry.encodedLength();
                }
            }
            if (length + groupLength > MessageHeaderDescriptor.MAX_MESSAGE_LENGTH)
            {
                break; // the next page starts with this group (a page always holds one whole group)
            }
            entries.addAll(group);
            length += groupLength;
            g++;
        }
        return new DamageScanOkMessage(request.requestId(), from, g, groups, entries);
    }
}
