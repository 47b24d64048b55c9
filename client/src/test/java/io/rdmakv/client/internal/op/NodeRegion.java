package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.RepairReplyMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RepairRefusal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One node's memory as a test sees it, without a server: a region laid out by {@link RegionGeometry} and
 * {@link RegionHeader}, exposed as two memory regions (header + index, data area) at made-up remote
 * addresses with their own rkeys; a bump allocator that answers ALLOC; a record of every FREE; and helpers
 * that read and write slots, locks and blocks directly (the "other sessions" of a test).
 */
final class NodeRegion implements AutoCloseable
{
    static final long INDEX_ADDRESS = 1L << 40;
    static final int INDEX_RKEY = 0x1D;
    static final int DATA_RKEY = 0xDA;
    /** The rkey of the first grant's window; each later grant's is one more (the node's windows, emulated). */
    static final int FIRST_WINDOW_RKEY = 0x3000;
    static final int CHUNK_SIZE = 256 * 1024;
    /** What one ALLOC grants (at least what was asked for). */
    static final int GRANT = 64 * 1024;

    /** One entry of a FREE the node received. */
    record Freed(long offset, int length)
    {
    }

    private final Arena arena = Arena.ofShared();
    private final RegionGeometry geometry = RegionGeometry.forMemory(1 << 20, CHUNK_SIZE);
    private final MemorySegment region = arena.allocate(geometry.regionLength(), 4096);
    private final List<Freed> frees = new ArrayList<>();
    private final List<Long> allocs = new ArrayList<>();
    private final List<RepairMessage> repairs = new ArrayList<>();
    private int repairRetries;
    private RepairRefusal repairRefusal;
    private long allocCursor = SlotWord.UNIT;
    private long allocLimit = geometry.dataLength();
    private boolean misalignNextGrant;
    /** Each grant's window: its rkey, at FIRST_WINDOW_RKEY + index, and where it starts and ends. */
    private final List<long[]> windows = new ArrayList<>();
    private boolean dataRegionRegistered = true;

    NodeRegion()
    {
        new RegionHeader().wrap(region).initialise(geometry, 1);
    }

    RegionGeometry geometry()
    {
        return geometry;
    }

    MemorySegment memory()
    {
        return region;
    }

    long dataAddress()
    {
        return INDEX_ADDRESS + geometry.dataOffset();
    }

    /** The node's regions as HELLO_OK would describe them. */
    RemoteIndex remoteIndex()
    {
        return new RemoteIndex(INDEX_ADDRESS, INDEX_RKEY, dataAddress(), DATA_RKEY, geometry);
    }

    /**
     * The region offset of {@code length} bytes at {@code address}, or -1 when {@code rkey} does not cover
     * them. As on a node with memory windows: the data area's rkey grants READs only; a WRITE there needs
     * the rkey of a grant's window (any session's: the fake does not tell queue pairs apart) and lies inside
     * that grant.
     */
    long translate(final long address, final int length, final int rkey, final boolean write)
    {
        if (rkey == INDEX_RKEY && within(address, length, INDEX_ADDRESS, geometry.headerAndIndexLength()))
        {
            return address - INDEX_ADDRESS;
        }
        if (!dataRegionRegistered || !within(address, length, dataAddress(), geometry.dataLength()))
        {
            return -1;
        }
        final int window = rkey - FIRST_WINDOW_RKEY;
        if (write ? window >= 0 && window < windows.size() && within(address, length,
            dataAddress() + windows.get(window)[0], windows.get(window)[1]) : rkey == DATA_RKEY)
        {
            return address - INDEX_ADDRESS;
        }
        return -1;
    }

    /** True when {@code address} is a group's insert lock word. */
    boolean isLockAddress(final long address)
    {
        final long inIndex = address - INDEX_ADDRESS - geometry.indexOffset();
        return inIndex >= 0 && inIndex % BucketDescriptor.GROUP_LENGTH == BucketDescriptor.INSERT_LOCK_OFFSET;
    }

    /** The data region is deregistered: its rkey no longer grants access (REM_ACCESS_ERR from now on). */
    void deregisterDataRegion()
    {
        dataRegionRegistered = false;
    }

    /** No ALLOC succeeds from now on. */
    void exhaustSpace()
    {
        allocLimit = allocCursor;
    }

    /** The next ALLOC_OK names an offset that is not a multiple of {@link SlotWord#UNIT} (a lying node). */
    void misalignNextGrant()
    {
        misalignNextGrant = true;
    }

    // ---- control plane ----------------------------------------------------------------------

    /** What the node answers to a control message (null: no reply). */
    ControlMessage answer(final ControlMessage request)
    {
        if (request instanceof AllocMessage alloc)
        {
            allocs.add(alloc.requestedBytes());
            final long length = KvBlockDescriptor.align((int)Math.max(GRANT, alloc.requestedBytes()));
            if (allocCursor + length > allocLimit)
            {
                return CodedRefusalMessage.allocFailed(alloc.requestId(), ReasonCode.OUT_OF_MEMORY, "no space left");
            }
            final long offset = allocCursor;
            allocCursor += length;
            windows.add(new long[] {offset, length});
            final long skew = misalignNextGrant ? 8 : 0;
            misalignNextGrant = false;
            return new AllocOkMessage(alloc.requestId(), offset + skew, length, FIRST_WINDOW_RKEY + windows.size() - 1);
        }
        if (request instanceof RepairMessage repair)
        {
            repairs.add(repair);
            return repair(repair);
        }
        if (request instanceof FreeMessage free)
        {
            for (int i = 0; i < free.count(); i++)
            {
                frees.add(new Freed(free.offset(i), free.length(i)));
            }
        }
        return null;
    }

    List<Freed> frees()
    {
        return frees;
    }

    List<Long> allocs()
    {
        return allocs;
    }

    /** Every REPAIR the node received. */
    List<RepairMessage> repairs()
    {
        return repairs;
    }

    /** The next {@code count} REPAIRs are answered RETRY (after 1 ms), as a node does on a first sighting. */
    void retryRepairs(final int count)
    {
        repairRetries = count;
    }

    /** Every REPAIR is refused with {@code why} from now on. */
    void refuseRepairs(final RepairRefusal why)
    {
        repairRefusal = why;
    }

    /**
     * A REPAIR answered as a node does (the node's {@code SlotRepair}, without its grace-period wait unless
     * {@link #retryRepairs} asks for it): the group must be one of the key's, the slot must hold the word, the
     * fingerprint must be the key's and the block must be damaged; then the slot is cleared.
     */
    private RepairReplyMessage repair(final RepairMessage repair)
    {
        final long id = repair.requestId();
        final long hash = KeyHash.hash(repair.key());
        final long groups = geometry.groupCount();
        final long slotOffset = geometry.slotRegionOffset(repair.group(), repair.slot());
        if (repair.group() != KeyHash.group1(hash, groups) && repair.group() != KeyHash.group2(hash, groups))
        {
            return RepairReplyMessage.refused(id, 0, RepairRefusal.NOT_THE_KEYS_GROUP, "not the key's group");
        }
        if (region.get(LittleEndian.U64, slotOffset) != repair.word())
        {
            return RepairReplyMessage.refused(id, 0, RepairRefusal.SLOT_CHANGED, "the slot changed");
        }
        final SlotDamage damage = new SlotDamage(region, geometry);
        final int found = damage.judge(repair.word());
        if (SlotWord.fingerprint(repair.word()) != KeyHash.fingerprint(hash) || found == SlotDamage.NONE)
        {
            return RepairReplyMessage.refused(id, found, RepairRefusal.NOT_DAMAGED, "not this key's damage");
        }
        if (repairRefusal != null)
        {
            return RepairReplyMessage.refused(id, found, repairRefusal, repairRefusal + ": scripted refusal");
        }
        if (repairRetries > 0)
        {
            repairRetries--;
            return RepairReplyMessage.retry(id, found, 1, "first sighting");
        }
        region.set(LittleEndian.U64, slotOffset, SlotWord.EMPTY);
        return RepairReplyMessage.repaired(id, found, "slot cleared");
    }

    // ---- the index and the blocks, as other sessions would touch them ----------------------

    /** Slot word of candidate {@code candidate} (0..13 first group, 14..27 second) of {@code key}. */
    long slot(final String key, final int candidate)
    {
        return region.get(LittleEndian.U64, slotOffset(key, candidate));
    }

    void slot(final String key, final int candidate, final long word)
    {
        region.set(LittleEndian.U64, slotOffset(key, candidate), word);
    }

    /** Every candidate slot word of {@code key}. */
    long[] slots(final String key)
    {
        final long[] words = new long[KeyLocation.CANDIDATES];
        for (int i = 0; i < words.length; i++)
        {
            words[i] = slot(key, i);
        }
        return words;
    }

    /** The candidate slot words of {@code key} that name a valid block of {@code key}. */
    List<Long> slotsHolding(final String key)
    {
        final List<Long> holding = new ArrayList<>();
        for (final long word : slots(key))
        {
            if (word != SlotWord.EMPTY && SlotWord.isWithin(word, geometry.dataLength()) &&
                block(word).isValid(bytes(key)))
            {
                holding.add(word);
            }
        }
        return holding;
    }

    /** The candidate index whose slot holds {@code word}, or -1. */
    int candidateHolding(final String key, final long word)
    {
        for (int i = 0; i < KeyLocation.CANDIDATES; i++)
        {
            if (slot(key, i) == word)
            {
                return i;
            }
        }
        return -1;
    }

    /** The insert lock word of {@code key}'s first group. */
    long lockWord(final String key)
    {
        return region.get(LittleEndian.U64, groupOffset(key, 0) + BucketDescriptor.INSERT_LOCK_OFFSET);
    }

    void lockWord(final String key, final long word)
    {
        region.set(LittleEndian.U64, groupOffset(key, 0) + BucketDescriptor.INSERT_LOCK_OFFSET, word);
    }

    /** Freezes every candidate slot of {@code key} for a move, as a node does: each word gets MOVING. */
    void freeze(final String key)
    {
        for (int i = 0; i < KeyLocation.CANDIDATES; i++)
        {
            slot(key, i, slot(key, i) | SlotWord.MOVING);
        }
    }

    /** Clears MOVING from every candidate slot of {@code key} (the move opened, or was abandoned). */
    void unfreeze(final String key)
    {
        for (int i = 0; i < KeyLocation.CANDIDATES; i++)
        {
            slot(key, i, SlotWord.withoutMoving(slot(key, i)));
        }
    }

    /** Stores {@code header} as the first-bucket header (the MOVED mark) of {@code key}'s group {@code group}. */
    void movedHeader(final String key, final int group, final long header)
    {
        region.set(LittleEndian.U64, groupOffset(key, group) + BucketDescriptor.MOVED_HEADER_OFFSET, header);
    }

    /** The block a slot word names (in the node's memory). */
    KvBlock block(final long word)
    {
        return new KvBlock().wrap(region, geometry.dataOffset() + SlotWord.blockOffset(word));
    }

    String value(final long word)
    {
        return new String(block(word).valueBytes(), StandardCharsets.UTF_8);
    }

    /** Another writer's block for {@code key}, in space of the node's own; returns the slot word naming it. */
    long writeBlock(final String key, final String value)
    {
        final byte[] k = bytes(key);
        final byte[] v = bytes(value);
        final int length = KvBlockDescriptor.blockLength(k.length, v.length);
        final long offset = allocCursor;
        allocCursor += length;
        block(SlotWord.encodeBlock(0, offset, length)).write(k, v);
        return SlotWord.encodeBlock(KeyHash.fingerprint(KeyHash.hash(k)), offset, length);
    }

    /** Flips a value byte of the block {@code word} names: its checksum no longer holds. */
    void damage(final long word)
    {
        final KvBlock block = block(word);
        final long at = block.valueOffset();
        region.set(LittleEndian.U8, at, (byte)(region.get(LittleEndian.U8, at) ^ 0x5A));
    }

    /** Fills every empty candidate slot of {@code key} with a word of another fingerprint. */
    void fillCandidateGroups(final String key)
    {
        final int otherFingerprint = (KeyHash.fingerprint(KeyHash.hash(bytes(key))) + 1) & SlotWord.FINGERPRINT_MASK;
        for (int i = 0; i < KeyLocation.CANDIDATES; i++)
        {
            if (slot(key, i) == SlotWord.EMPTY)
            {
                slot(key, i, SlotWord.encodeBlock(otherFingerprint, (long)(i + 1) * SlotWord.UNIT, SlotWord.UNIT));
            }
        }
    }

    static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close()
    {
        arena.close();
    }

    private long slotOffset(final String key, final int candidate)
    {
        final int group = candidate / BucketDescriptor.SLOTS_PER_GROUP;
        return groupOffset(key, group) +
            BucketDescriptor.slotOffsetInGroup(candidate % BucketDescriptor.SLOTS_PER_GROUP);
    }

    private long groupOffset(final String key, final int group)
    {
        final long hash = KeyHash.hash(bytes(key));
        return geometry.groupRegionOffset(group == 0 ? KeyHash.group1(hash, geometry.groupCount()) :
            KeyHash.group2(hash, geometry.groupCount()));
    }

    private static boolean within(final long address, final int length, final long base, final long size)
    {
        return length >= 0 && address >= base && address - base <= size - length;
    }
}
