package io.rdmakv.client;

import io.rdmakv.client.internal.session.Session;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.protocol.DamageScanOkMessage;

import java.util.ArrayList;
import java.util.List;

/** Walks each node's index page by page (DAMAGE_SCAN) and keeps the first damaged slots up to a limit. */
final class DamageListing
{
    private final int limit;
    private final List<DamagedSlot> slots = new ArrayList<>();
    private long total;

    DamageListing(final int limit)
    {
        if (limit < 0)
        {
            throw new IllegalArgumentException("limit " + limit + " must be at least 0");
        }
        this.limit = limit;
    }

    /** Lists node {@code node}'s damaged slots through {@code session}; false when the session failed. */
    boolean collect(final Session session, final int node)
    {
        long from = 0;
        DamageScanOkMessage page;
        do
        {
            session.enter();
            try
            {
                page = session.scanDamage(from);
            }
            finally
            {
                session.exit();
            }
            if (page == null || page.nextGroup() <= from && !page.done())
            {
                return false;
            }
            for (final DamageScanOkMessage.Entry e : page.entries())
            {
                total++;
                if (slots.size() < limit)
                {
                    slots.add(new DamagedSlot(node, e.group(), e.slot(), e.word(), SlotDamage.describe(e.damage()),
                        e.keyLength(), e.key()));
                }
            }
            from = page.nextGroup();
        }
        while (!page.done());
        return true;
    }

    DamageReport report()
    {
        return new DamageReport(slots, total);
    }
}
