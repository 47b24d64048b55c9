package io.rdmakv.client;

import java.util.List;

/**
 * What {@link KvClient#damagedSlots(int)} found: the first damaged slots (node by node, in index order) up
 * to the limit asked for, and how many damaged slots there are in all.
 */
public record DamageReport(List<DamagedSlot> slots, long total)
{
    public DamageReport
    {
        slots = List.copyOf(slots);
    }

    /** Damaged slots found beyond those listed. */
    public long more()
    {
        return total - slots.size();
    }
}
