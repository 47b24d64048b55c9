package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;

/**
 * Finds the staged key among its candidate slots after a group READ: walks them in canonical order
 * (first group, then second), READs the block of each fingerprint match into
 * {@link LaneBuffers#READ_BLOCK} and validates it (checksum, lengths, key). Also the one place that
 * decides that a block is damaged rather than being replaced under us, and remembers which slot and word
 * (what a writer's {@link DamageRepair} names to the node).
 */
final class BlockSearch
{
    /** Validation failures of one unchanged slot word before the block is declared corrupted. */
    static final int CORRUPTION_VERDICT = 8;

    /** What a search found. */
    enum Outcome
    {
        /** A slot holds the key: {@link #slotAddress()} and {@link #word()}. */
        FOUND,
        /** No candidate slot holds the key. */
        ABSENT,
        /** A matching block failed validation: it changed under us; read the groups again. */
        CHANGED,
        /** A slot's block kept failing validation while the slot did not change: the data is damaged. */
        CORRUPTED,
        /** The lane failed (its {@link SessionIo#failure()} says how). */
        FAILED,
        /** A candidate group carries the MOVED mark: the partition left this node's group; follow the map. */
        MOVED
    }

    private final LaneRequests requests;
    private final RemoteIndex remote;
    private final KeyLocation key;
    private final MemorySegment mem;
    private final KvBlock block = new KvBlock();
    private long slotAddress;
    private long word;
    private long suspectWord;
    private int suspectCandidate;
    private int suspectFailures;

    BlockSearch(final LaneRequests requests, final RemoteIndex remote, final KeyLocation key, final MemorySegment mem)
    {
        this.requests = requests;
        this.remote = remote;
        this.key = key;
        this.mem = mem;
        block.wrap(mem, LaneBuffers.READ_BLOCK);
    }

    /** Searches the groups the last READ brought in. */
    Outcome search()
    {
        if (key.moved())
        {
            return Outcome.MOVED;
        }
        for (int i = 0; i < KeyLocation.CANDIDATES; i++)
        {
            final long candidate = key.word(i);
            if (!key.mayHold(candidate))
            {
                continue;
            }
            if (!remote.isPlausible(candidate))
            {
                return suspect(i, candidate);
            }
            if (requests.readBlock(candidate) != Status.OK)
            {
                return Outcome.FAILED;
            }
            final int valid = validate(candidate);
            if (valid == KvBlock.VALID)
            {
                slotAddress = key.slotAddress(i);
                word = candidate;
                return Outcome.FOUND;
            }
            if (valid != KvBlock.KEY_MISMATCH)
            {
                return suspect(i, candidate);
            }
        }
        return Outcome.ABSENT;
    }

    /** Whether the block in {@link LaneBuffers#READ_BLOCK} is the staged key's, as {@code word} names it. */
    boolean holdsKey(final long word)
    {
        return validate(word) == KvBlock.VALID;
    }

    /** Whether {@code word} names a block inside the node's data area (a READ of it cannot break the session). */
    boolean mayRead(final long word)
    {
        return remote.isPlausible(word);
    }

    /** After {@link Outcome#FOUND}: the remote address of the slot that holds the key. */
    long slotAddress()
    {
        return slotAddress;
    }

    /** After {@link Outcome#FOUND}: the slot word (the key's version, with {@code MOVING} when frozen). */
    long word()
    {
        return word;
    }

    /** After {@link Outcome#CORRUPTED}: the candidate (0..27, see {@link KeyLocation}) whose block is damaged. */
    int suspectCandidate()
    {
        return suspectCandidate;
    }

    /** After {@link Outcome#CORRUPTED}: the word under which the block kept failing. */
    long suspectWord()
    {
        return suspectWord;
    }

    /** Starts the failure count afresh (the node repaired the suspect slot, or said it changed). */
    void forgetSuspect()
    {
        suspectWord = 0;
        suspectFailures = 0;
    }

    /** The block read last (the value of a GET is in it). */
    KvBlock block()
    {
        return block;
    }

    private int validate(final long word)
    {
        return block.validate(mem, LaneBuffers.KEY, key.keyLength(), SlotWord.blockLength(word));
    }

    /**
     * A slot whose block failed validation (or points outside the data area). A block being replaced
     * fails once or twice; one that keeps failing under an unchanged slot word is damaged.
     */
    private Outcome suspect(final int index, final long candidate)
    {
        suspectFailures = candidate == suspectWord ? suspectFailures + 1 : 1;
        suspectWord = candidate;
        suspectCandidate = index;
        return suspectFailures >= CORRUPTION_VERDICT ? Outcome.CORRUPTED : Outcome.CHANGED;
    }
}
