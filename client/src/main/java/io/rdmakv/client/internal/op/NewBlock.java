package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.chain.ChainCommit;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.SlotWord;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * The block a write installs, and the steps every write protocol shares: assemble it (through
 * {@link KvBlock}) in {@link LaneBuffers#WRITE_BLOCK}, find it a place in the {@link SpaceLease}, WRITE it
 * out of place in the first doorbell that goes out (it rides along, costing no round trip of its own),
 * and commit: the slot now names it, the cache learns so, the superseded block goes to FREE.
 */
final class NewBlock
{
    private final MemorySegment mem;
    private final KvBlock block = new KvBlock();
    private final KeyLocation key;
    private final LaneRequests requests;
    private final ChainCommit commit;
    private final SpaceLease space;
    private final CachedSlot cached;
    private final LaneResult result;
    private final NanoClock clock;
    private int length;
    private long word;
    private boolean written;
    private int writerEpoch;

    NewBlock(final MemorySegment mem, final KeyLocation key, final LaneRequests requests, final ChainCommit commit,
        final SpaceLease space,
        final CachedSlot cached, final LaneResult result, final NanoClock clock)
    {
        this.mem = mem;
        this.key = key;
        this.requests = requests;
        this.commit = commit;
        this.space = space;
        this.cached = cached;
        this.result = result;
        this.clock = clock;
        block.wrap(mem, LaneBuffers.WRITE_BLOCK);
    }

    /** Stamps every block from now on with {@code epoch} (the low 32 bits of its session's map epoch). */
    void writerEpoch(final int epoch)
    {
        this.writerEpoch = epoch;
    }

    /** Assembles the block of the staged key and {@code value}; returns its length. */
    int assemble(final MemorySegment value, final long offset, final int valueLength)
    {
        return block.write(mem, LaneBuffers.KEY, key.keyLength(), value, offset, valueLength, 0, writerEpoch);
    }

    /** Gives the assembled block its place (ALLOC when needed); returns a {@link Status}. */
    int place()
    {
        length = KvBlockDescriptor.blockLength(key.keyLength(), block.valueLength());
        final int rc = space.reserve(length);
        if (rc != Status.OK)
        {
            return rc;
        }
        word = SlotWord.encodeBlock(key.fingerprint(), space.offset(), length);
        written = false;
        return Status.OK;
    }

    /** The slot word that names the new block: the key's next version. */
    long word()
    {
        return word;
    }

    /** One doorbell: READ both groups, with the block's WRITE in front if it has not gone out yet. */
    int readGroups()
    {
        final int rc = written ? requests.readGroups(key) : requests.writeAndReadGroups(word, space.writeRkey(), key);
        written = true;
        return rc;
    }

    /** One doorbell: READ both candidate groups and the block {@code word} names, WRITE in front if not gone out. */
    int readGroupsAndBlock(final long word)
    {
        final int rc = written ? requests.readGroupsAndBlock(key, word) :
            requests.writeAndReadGroupsAndBlock(this.word, space.writeRkey(), key, word);
        written = true;
        return rc;
    }

    /** One doorbell: CAS the slot from {@code expected} to the block, WRITE in front if not gone out. */
    int casSlot(final long slotAddress, final long expected)
    {
        final int rc = written ? commit.casSlot(slotAddress, expected, word) :
            commit.writeAndCasSlot(word, space.writeRkey(), slotAddress, expected, word);
        written = true;
        return rc;
    }

    /** One doorbell: READ a cached slot and its block, WRITE in front if not gone out. */
    int readSlotAndBlock(final long slotAddress, final long cachedWord)
    {
        final int rc = written ? requests.readSlotAndBlock(slotAddress, cachedWord) :
            requests.writeAndReadSlotAndBlock(word, space.writeRkey(), slotAddress, cachedWord);
        written = true;
        return rc;
    }

    /**
     * The slot at {@code slotAddress} went from {@code oldWord} to this block: the block's space is
     * taken, the cache remembers the slot as seen at {@code seenNanos}, the old block goes to FREE.
     */
    int committed(final long slotAddress, final long oldWord, final long seenNanos)
    {
        space.commit(length);
        cached.remember(slotAddress, word, seenNanos);
        result.version(word, key.versionSalt());
        return oldWord == SlotWord.EMPTY ? Status.OK :
            space.release(SlotWord.blockOffset(oldWord), SlotWord.blockLength(oldWord));
    }

    long now()
    {
        return clock.nanoTime();
    }
}
