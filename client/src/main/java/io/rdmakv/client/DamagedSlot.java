package io.rdmakv.client;

import java.util.Arrays;

/**
 * One damaged slot of a node, as {@link KvClient#damagedSlots(int)} lists it: where it is, the slot word,
 * what is wrong ({@code outside_data_area}, {@code bad_header}, {@code bad_length}, {@code bad_checksum}) and
 * the key of its block when the key can be read ({@code keyLength} -1 when not; {@code key} holds at most the
 * first 256 bytes). A PUT or DELETE of that key repairs the slot.
 */
public record DamagedSlot(int node, long group, int slot, long word, String damage, int keyLength, byte[] key)
{
    public DamagedSlot
    {
        key = key.clone();
    }

    @Override
    public byte[] key()
    {
        return key.clone();
    }

    /** Whether the block's key could be read. */
    public boolean keyReadable()
    {
        return keyLength >= 0;
    }

    /** Whether {@link #key()} is only the first bytes of a longer key. */
    public boolean keyTruncated()
    {
        return keyLength > key.length;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof DamagedSlot d && node == d.node && group == d.group && slot == d.slot && word == d.word &&
            damage.equals(d.damage) && keyLength == d.keyLength && Arrays.equals(key, d.key);
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(group) * 31 + slot) * 31 + Long.hashCode(word) + node;
    }

    @Override
    public String toString()
    {
        return "DamagedSlot{node=" + node + " group=" + group + " slot=" + slot + " word=0x" +
            Long.toHexString(word) + " " + damage + " keyLength=" + keyLength + "}";
    }
}
