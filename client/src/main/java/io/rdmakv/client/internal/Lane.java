package io.rdmakv.client.internal;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.BucketGroup;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The one-sided protocols on one lane (one queue pair to one node, used by one thread at a time).
 *
 * <ul>
 * <li>GET: READ both candidate bucket groups (one doorbell), READ the block of each slot whose
 *     fingerprint matches until one holds the key with a valid checksum. With a fresh cached slot:
 *     READ slot and block in one doorbell.</li>
 * <li>PUT: WRITE the new block out of place in the same doorbell as the bucket READs, verify the
 *     key's current block, CAS the slot from it to the new block. A key not present is inserted under
 *     the insert lock of its first group (CAS on the lock word, then re-read, then CAS an empty slot
 *     and release), so one key never gets two slots. With a fresh cached slot: WRITE plus CAS in one
 *     doorbell.</li>
 * <li>DELETE: find and verify like PUT, CAS the slot to empty.</li>
 * <li>Compare-and-set on a version (the slot word a reader saw): CAS from exactly that word.</li>
 * </ul>
 *
 * Superseded blocks go to the FREE batch. Operations return {@link Status} codes and allocate nothing.
 */
public final class Lane
{
    static final int MAX_ATTEMPTS = 1000;
    private static final int SEARCH_FOUND = 1;
    private static final int SEARCH_ABSENT = 0;
    private static final int SEARCH_RETRY = 2;
    private static final int INSERT_RETRY = 3;
    private static final int INSERT_FOUND = 4;
    /** Validation failures of one unchanged slot word before the block is declared corrupted. */
    static final int CORRUPTION_VERDICT = 8;

    private final LaneIo io;
    private final RemoteIndex remote;
    private final MemorySegment mem;
    private final LaneControl control;
    private final ClientSpace space;
    private final SlotCache cache;
    private final LaneCounters counters;
    private final long lockWord;
    private final long staleAfterNanos;
    private final int maxKeyLength;
    private final int maxValueLength;
    private final KvBlock readBlock = new KvBlock();
    private final KvBlock writeBlock = new KvBlock();
    private final BucketGroup group1View = new BucketGroup();
    private final BucketGroup group2View = new BucketGroup();

    private int keyLength;
    private long keyHash;
    private int fingerprint;
    private long group1Address;
    private long group2Address;
    private long foundSlotAddress;
    private long foundWord;
    private long resultVersion;
    private long suspectWord;
    private int suspectFailures;

    Lane(final LaneIo io, final RemoteIndex remote, final MemorySegment mem, final LaneControl control,
        final ClientSpace space, final LaneCounters counters, final long lockWord, final long graceNanos)
    {
        this.io = io;
        this.remote = remote;
        this.mem = mem;
        this.control = control;
        this.space = space;
        this.counters = counters;
        this.lockWord = lockWord;
        this.staleAfterNanos = graceNanos / 2;
        this.cache = new SlotCache(1 << 14, graceNanos / 2);
        this.maxKeyLength = remote.geometry().maxKeyLength();
        this.maxValueLength = remote.geometry().maxValueLength();
        group1View.wrap(mem, LaneBuffers.GROUPS);
        group2View.wrap(mem, LaneBuffers.GROUPS + BucketDescriptor.GROUP_LENGTH);
        readBlock.wrap(mem, LaneBuffers.READ_BLOCK);
        writeBlock.wrap(mem, LaneBuffers.WRITE_BLOCK);
    }

    /** How many times an operation retries after lost races before it gives up. */
    public static int maxAttempts()
    {
        return MAX_ATTEMPTS;
    }

    public int maxKeyLength()
    {
        return maxKeyLength;
    }

    public int maxValueLength()
    {
        return maxValueLength;
    }

    public LaneCounters counters()
    {
        return counters;
    }

    /** The failure that broke this lane, or 0. A broken lane is discarded, never reused. */
    public int failure()
    {
        return io.failure();
    }

    // ---- key staging ------------------------------------------------------------------------

    /** Stages the key of the next operation (length already checked by the caller). */
    /** Stages the key whose {@link KeyHash#hash} the caller already computed to route it (no second pass). */
    public void key(final byte[] key, final int offset, final int length, final long hash)
    {
        MemorySegment.copy(key, offset, mem, ValueLayout.JAVA_BYTE, LaneBuffers.KEY, length);
        staged(length, hash);
    }

    public void key(final MemorySegment key, final long offset, final int length, final long hash)
    {
        MemorySegment.copy(key, offset, mem, LaneBuffers.KEY, length);
        staged(length, hash);
    }

    private void staged(final int length, final long hash)
    {
        keyLength = length;
        keyHash = hash;
        fingerprint = KeyHash.fingerprint(keyHash);
        group1Address = remote.groupAddress(KeyHash.group1(keyHash, remote.groupCount()));
        group2Address = remote.groupAddress(KeyHash.group2(keyHash, remote.groupCount()));
    }

    // ---- results ----------------------------------------------------------------------------

    /** After a successful get: the value's bytes in {@link #valueSegment()}. */
    public long valueOffset()
    {
        return readBlock.valueOffset();
    }

    public int valueLength()
    {
        return readBlock.valueLength();
    }

    public MemorySegment valueSegment()
    {
        return mem;
    }

    /** After a successful get or write: the version (slot word) the key now has. */
    public long version()
    {
        return resultVersion;
    }

    // ---- GET --------------------------------------------------------------------------------

    public int get()
    {
        counters.gets++;
        final int entry = cache.lookup(keyHash);
        if (entry >= 0)
        {
            final long start = System.nanoTime();
            final long word = cache.word(entry);
            final int rc = readCachedSlotAndBlock(entry, 0);
            if (rc != Status.OK)
            {
                return error(rc);
            }
            if (cachedSlotHolds(word) && System.nanoTime() - start < staleAfterNanos)
            {
                counters.cacheHits++;
                cache.put(keyHash, cache.slotAddress(entry), word, start);
                resultVersion = word;
                return Status.OK;
            }
            cache.invalidate(keyHash);
        }
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        {
            final long t0 = System.nanoTime();
            int rc = readGroups(0);
            if (rc != Status.OK)
            {
                return error(rc);
            }
            rc = search();
            if (rc < 0)
            {
                return error(rc);
            }
            if (rc == SEARCH_ABSENT)
            {
                counters.notFound++;
                return Status.NOT_FOUND;
            }
            if (rc == SEARCH_FOUND && System.nanoTime() - t0 < staleAfterNanos)
            {
                cache.put(keyHash, foundSlotAddress, foundWord, t0);
                resultVersion = foundWord;
                return Status.OK;
            }
            counters.validationRetries++;
            backoff(attempt);
        }
        return error(Status.RETRIES_EXHAUSTED);
    }

    // ---- PUT, insert-if-absent, compare-and-set -----------------------------------------------

    /** Assembles the block for the staged key and a value from an array; returns its length or a failure. */
    public int value(final byte[] value, final int offset, final int length)
    {
        final int blockLength = startBlock(length);
        MemorySegment.copy(value, offset, mem, ValueLayout.JAVA_BYTE, writeBlock.valueOffset(), length);
        writeBlock.updateChecksum();
        return blockLength;
    }

    public int value(final MemorySegment value, final long offset, final int length)
    {
        final int blockLength = startBlock(length);
        MemorySegment.copy(value, offset, mem, writeBlock.valueOffset(), length);
        writeBlock.updateChecksum();
        return blockLength;
    }

    private int startBlock(final int valueLength)
    {
        writeBlock.flags(0).keyLength(keyLength).valueLength(valueLength);
        mem.set(ValueLayout.JAVA_INT_UNALIGNED, LaneBuffers.WRITE_BLOCK + KvBlockDescriptor.RESERVED_OFFSET, 0);
        MemorySegment.copy(mem, LaneBuffers.KEY, mem, writeBlock.keyOffset(), keyLength);
        return KvBlockDescriptor.blockLength(keyLength, valueLength);
    }

    /** Insert or update the staged key with the assembled block. */
    public int put()
    {
        counters.puts++;
        return write(Mode.PUT, 0L);
    }

    /**
     * Writes the assembled block only if the key's version is {@code expected}; {@code expected} 0
     * means "only if absent". Returns OK, CONFLICT or a failure.
     */
    public int compareAndSet(final long expected)
    {
        counters.compareAndSets++;
        return write(expected == 0 ? Mode.INSERT_IF_ABSENT : Mode.IF_VERSION, expected);
    }

    private enum Mode
    {
        PUT, IF_VERSION, INSERT_IF_ABSENT
    }

    private int write(final Mode mode, final long expected)
    {
        final int blockLength = KvBlockDescriptor.blockLength(keyLength, writeBlock.valueLength());
        int rc = maintainFrees();
        if (rc != Status.OK)
        {
            return error(rc);
        }
        long offset = space.peek(blockLength);
        if (offset < 0)
        {
            rc = control.allocate(blockLength);
            if (rc != Status.OK)
            {
                return error(rc);
            }
            offset = space.peek(blockLength);
        }
        final long newWord = SlotWord.encodeBlock(fingerprint, offset, blockLength);
        prepareBlockWrite(0, newWord);
        boolean written = false;

        final long now = System.nanoTime();
        final int entry = mode == Mode.INSERT_IF_ABSENT ? -1 : cache.lookup(keyHash);
        if (entry >= 0 && (mode == Mode.PUT || cache.word(entry) == expected))
        {
            final long cached = cache.word(entry);
            final boolean fresh = cache.isFresh(entry, now);
            rc = verifyCachedSlot(entry, true, now);
            if (rc < 0)
            {
                return error(rc);
            }
            written = !fresh;
            if (rc == 1)
            {
                final int first = written ? 0 : 1;
                io.wr(first).sendFlags(0).compareAndSwap(io.localAddress(LaneBuffers.ATOMIC), io.lkey(),
                    cache.slotAddress(entry), remote.indexRkey(), cached, newWord);
                rc = io.ring(first + 1);
                if (rc != Status.OK)
                {
                    return error(rc);
                }
                written = true;
                if (atomicResult() == cached)
                {
                    counters.cacheHits++;
                    return committed(blockLength, cache.slotAddress(entry), cached, newWord, now);
                }
                cache.invalidate(keyHash);
            }
            if (mode == Mode.IF_VERSION)
            {
                counters.conflicts++;
                return Status.CONFLICT;
            }
        }

        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        {
            final long t0 = System.nanoTime();
            rc = readGroups(written ? 0 : newWord);
            if (rc != Status.OK)
            {
                return error(rc);
            }
            written = true;
            if (mode == Mode.IF_VERSION)
            {
                return casExactVersion(expected, newWord, blockLength, t0);
            }
            rc = mode == Mode.INSERT_IF_ABSENT ? SEARCH_ABSENT : search();
            if (rc < 0)
            {
                return error(rc);
            }
            if (rc == SEARCH_FOUND)
            {
                rc = casSlot(foundSlotAddress, foundWord, newWord);
                if (rc != Status.OK)
                {
                    return error(rc);
                }
                if (atomicResult() == foundWord)
                {
                    return committed(blockLength, foundSlotAddress, foundWord, newWord, t0);
                }
                counters.casRetries++;
            }
            else if (rc == SEARCH_ABSENT)
            {
                rc = insertUnderLock(mode, newWord, blockLength, t0);
                if (rc != INSERT_RETRY && rc != INSERT_FOUND)
                {
                    return rc;
                }
            }
            else
            {
                counters.validationRetries++;
            }
            backoff(attempt);
        }
        return error(Status.RETRIES_EXHAUSTED);
    }

    private int casExactVersion(final long expected, final long newWord, final int blockLength, final long t0)
    {
        long slotAddress = 0;
        for (int i = 0; i < BucketDescriptor.SLOTS_PER_GROUP * 2 && slotAddress == 0; i++)
        {
            if (slotWord(i) == expected)
            {
                slotAddress = candidateSlotAddress(i);
            }
        }
        if (slotAddress == 0)
        {
            counters.conflicts++;
            return Status.CONFLICT;
        }
        final int rc = casSlot(slotAddress, expected, newWord);
        if (rc != Status.OK)
        {
            return error(rc);
        }
        if (atomicResult() != expected)
        {
            counters.conflicts++;
            return Status.CONFLICT;
        }
        return committed(blockLength, slotAddress, expected, newWord, t0);
    }

    /** Takes the insert lock, re-reads, and inserts if the key is still absent. */
    private int insertUnderLock(final Mode mode, final long newWord, final int blockLength, final long t0)
    {
        final long lockAddress = RemoteIndex.lockAddress(group1Address);
        io.wr(0).sendFlags(0).compareAndSwap(io.localAddress(LaneBuffers.LOCK), io.lkey(), lockAddress,
            remote.indexRkey(), 0L, lockWord);
        // No fence: an RC responder executes the CAS before the READs behind it, so they see the lock taken.
        // (A fence here also stalled Soft-RoCE's requester now and then.)
        prepareGroupReads(1, 0);
        int rc = io.ring(3);
        if (rc != Status.OK)
        {
            return error(rc);
        }
        if (mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.LOCK) != 0L)
        {
            counters.lockRetries++;
            return INSERT_RETRY;
        }
        rc = search();
        if (rc != SEARCH_ABSENT)
        {
            unlock(lockAddress);
            if (rc < 0)
            {
                return error(rc);
            }
            if (rc == SEARCH_FOUND && mode == Mode.INSERT_IF_ABSENT)
            {
                counters.conflicts++;
                return Status.CONFLICT;
            }
            return rc == SEARCH_FOUND ? INSERT_FOUND : INSERT_RETRY;
        }
        final int used1 = group1View.usedSlots();
        final int used2 = group2View.usedSlots();
        int index = -1;
        if (used1 <= used2 && used1 < BucketDescriptor.SLOTS_PER_GROUP)
        {
            index = group1View.indexOfEmpty();
        }
        else if (used2 < BucketDescriptor.SLOTS_PER_GROUP)
        {
            index = BucketDescriptor.SLOTS_PER_GROUP + group2View.indexOfEmpty();
        }
        if (index < 0)
        {
            unlock(lockAddress);
            return error(Status.TABLE_FULL);
        }
        final long slotAddress = candidateSlotAddress(index);
        io.wr(0).sendFlags(0).compareAndSwap(io.localAddress(LaneBuffers.ATOMIC), io.lkey(), slotAddress,
            remote.indexRkey(), 0L, newWord);
        io.wr(1).sendFlags(0).compareAndSwap(io.localAddress(LaneBuffers.UNLOCK), io.lkey(), lockAddress,
            remote.indexRkey(), lockWord, 0L);
        rc = io.ring(2);
        if (rc != Status.OK)
        {
            return error(rc);
        }
        if (atomicResult() != 0L)
        {
            counters.casRetries++;
            return INSERT_RETRY;
        }
        return committed(blockLength, slotAddress, 0L, newWord, t0);
    }

    private void unlock(final long lockAddress)
    {
        io.wr(0).sendFlags(0).compareAndSwap(io.localAddress(LaneBuffers.UNLOCK), io.lkey(), lockAddress,
            remote.indexRkey(), lockWord, 0L);
        io.postUnsignaled(0);
    }

    private int committed(final int blockLength, final long slotAddress, final long oldWord, final long newWord,
        final long seenNanos)
    {
        space.commit(blockLength);
        cache.put(keyHash, slotAddress, newWord, seenNanos);
        resultVersion = newWord;
        return oldWord == 0 ? Status.OK : release(oldWord);
    }

    // ---- DELETE -----------------------------------------------------------------------------

    public int delete()
    {
        counters.deletes++;
        final int entry = cache.lookup(keyHash);
        if (entry >= 0)
        {
            final long cached = cache.word(entry);
            int rc = verifyCachedSlot(entry, false, System.nanoTime());
            if (rc < 0)
            {
                return error(rc);
            }
            if (rc == 1)
            {
                rc = casSlot(cache.slotAddress(entry), cached, 0L);
                if (rc != Status.OK)
                {
                    return error(rc);
                }
                cache.invalidate(keyHash);
                if (atomicResult() == cached)
                {
                    counters.cacheHits++;
                    return release(cached);
                }
            }
        }
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
        {
            int rc = readGroups(0);
            if (rc != Status.OK)
            {
                return error(rc);
            }
            rc = search();
            if (rc < 0)
            {
                return error(rc);
            }
            if (rc == SEARCH_ABSENT)
            {
                counters.notFound++;
                return Status.NOT_FOUND;
            }
            if (rc == SEARCH_FOUND)
            {
                rc = casSlot(foundSlotAddress, foundWord, 0L);
                if (rc != Status.OK)
                {
                    return error(rc);
                }
                if (atomicResult() == foundWord)
                {
                    return release(foundWord);
                }
                counters.casRetries++;
            }
            else
            {
                counters.validationRetries++;
            }
            backoff(attempt);
        }
        return error(Status.RETRIES_EXHAUSTED);
    }

    // ---- shared steps -----------------------------------------------------------------------

    /** Prepares, from work request {@code first}, READs of the cached slot and of the block it names; rings. */
    private int readCachedSlotAndBlock(final int entry, final int first)
    {
        final long word = cache.word(entry);
        io.wr(first).sendFlags(0).rdmaRead(io.localAddress(LaneBuffers.SLOT), 8, io.lkey(), cache.slotAddress(entry),
            remote.indexRkey());
        io.wr(first + 1).sendFlags(0).rdmaRead(io.localAddress(LaneBuffers.READ_BLOCK), SlotWord.blockLength(word),
            io.lkey(), remote.blockAddress(word), remote.dataRkey());
        return io.ring(first + 2);
    }

    /** After {@link #readCachedSlotAndBlock}: the slot still holds {@code word} and its block is this key's. */
    private boolean cachedSlotHolds(final long word)
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.SLOT) == word &&
            readBlock.validate(mem, LaneBuffers.KEY, keyLength, SlotWord.blockLength(word)) == KvBlock.VALID;
    }

    /**
     * Whether the cached slot of the staged key may be CASed from its cached word: at once when the entry
     * is fresh, else after one doorbell that (with the block WRITE when {@code withBlockWrite}) READs the
     * slot and its block and finds both unchanged. Returns 1 for yes, 0 for no, or a negative failure.
     */
    private int verifyCachedSlot(final int entry, final boolean withBlockWrite, final long now)
    {
        if (cache.isFresh(entry, now))
        {
            return 1;
        }
        final int rc = readCachedSlotAndBlock(entry, withBlockWrite ? 1 : 0);
        if (rc != Status.OK)
        {
            return rc;
        }
        if (cachedSlotHolds(cache.word(entry)) && System.nanoTime() - now < staleAfterNanos)
        {
            return 1;
        }
        cache.invalidate(keyHash);
        return 0;
    }

    private void prepareBlockWrite(final int index, final long newWord)
    {
        io.wr(index).sendFlags(0).rdmaWrite(io.localAddress(LaneBuffers.WRITE_BLOCK), SlotWord.blockLength(newWord),
            io.lkey(), remote.blockAddress(newWord), remote.dataRkey());
    }

    private void prepareGroupReads(final int first, final int flags)
    {
        io.wr(first).sendFlags(flags).rdmaRead(io.localAddress(LaneBuffers.GROUPS), BucketDescriptor.GROUP_LENGTH,
            io.lkey(), group1Address, remote.indexRkey());
        io.wr(first + 1).sendFlags(flags).rdmaRead(io.localAddress(LaneBuffers.GROUPS + BucketDescriptor.GROUP_LENGTH),
            BucketDescriptor.GROUP_LENGTH, io.lkey(), group2Address, remote.indexRkey());
    }

    /** One doorbell: the WRITE of the block named by {@code blockWord} (none when 0), READ of both groups. */
    private int readGroups(final long blockWord)
    {
        if (blockWord != 0)
        {
            prepareBlockWrite(0, blockWord);
            prepareGroupReads(1, 0);
            return io.ring(3);
        }
        prepareGroupReads(0, 0);
        return io.ring(2);
    }

    private int casSlot(final long slotAddress, final long expected, final long swap)
    {
        io.wr(0).sendFlags(0).compareAndSwap(io.localAddress(LaneBuffers.ATOMIC), io.lkey(), slotAddress,
            remote.indexRkey(), expected, swap);
        return io.ring(1);
    }

    private long atomicResult()
    {
        return mem.get(ValueLayout.JAVA_LONG_UNALIGNED, LaneBuffers.ATOMIC);
    }

    private long slotWord(final int candidate)
    {
        return candidate < BucketDescriptor.SLOTS_PER_GROUP ? group1View.slot(candidate) :
            group2View.slot(candidate - BucketDescriptor.SLOTS_PER_GROUP);
    }

    private long candidateSlotAddress(final int candidate)
    {
        return candidate < BucketDescriptor.SLOTS_PER_GROUP ? RemoteIndex.slotAddress(group1Address, candidate) :
            RemoteIndex.slotAddress(group2Address, candidate - BucketDescriptor.SLOTS_PER_GROUP);
    }

    /**
     * Walks the candidate slots in canonical order (first group, then second), reading the block of each
     * fingerprint match. FOUND sets {@link #foundSlotAddress} and {@link #foundWord}; RETRY means a block
     * failed validation (it changed under us); ABSENT means no slot holds the key.
     */
    private int search()
    {
        for (int i = 0; i < BucketDescriptor.SLOTS_PER_GROUP * 2; i++)
        {
            final long word = slotWord(i);
            if (word == SlotWord.EMPTY || SlotWord.fingerprint(word) != fingerprint)
            {
                continue;
            }
            if (!remote.isPlausible(word))
            {
                return suspect(word);
            }
            io.wr(0).sendFlags(0).rdmaRead(io.localAddress(LaneBuffers.READ_BLOCK), SlotWord.blockLength(word),
                io.lkey(), remote.blockAddress(word), remote.dataRkey());
            final int rc = io.ring(1);
            if (rc != Status.OK)
            {
                return rc;
            }
            final int valid = readBlock.validate(mem, LaneBuffers.KEY, keyLength, SlotWord.blockLength(word));
            if (valid == KvBlock.VALID)
            {
                foundSlotAddress = candidateSlotAddress(i);
                foundWord = word;
                return SEARCH_FOUND;
            }
            if (valid != KvBlock.KEY_MISMATCH)
            {
                return suspect(word);
            }
        }
        return SEARCH_ABSENT;
    }

    /**
     * A slot whose block failed validation (or points outside the data area). A block being replaced
     * fails once or twice; one that keeps failing under an unchanged slot word is damaged.
     */
    private int suspect(final long word)
    {
        suspectFailures = word == suspectWord ? suspectFailures + 1 : 1;
        suspectWord = word;
        return suspectFailures >= CORRUPTION_VERDICT ? Status.CORRUPTED : SEARCH_RETRY;
    }

    /** Queues a superseded block for FREE. */
    private int release(final long oldWord)
    {
        final long now = System.nanoTime();
        if (!space.addFree(SlotWord.blockOffset(oldWord), SlotWord.blockLength(oldWord), now))
        {
            final int rc = control.flushFrees();
            if (rc != Status.OK)
            {
                return error(rc);
            }
            space.addFree(SlotWord.blockOffset(oldWord), SlotWord.blockLength(oldWord), now);
        }
        return Status.OK;
    }

    private int maintainFrees()
    {
        return space.shouldFlush(System.nanoTime()) ? control.flushFrees() : Status.OK;
    }

    private int error(final int status)
    {
        if (status < 0)
        {
            counters.errors++;
        }
        return status;
    }

    private static void backoff(final int attempt)
    {
        if (attempt < 4)
        {
            Thread.onSpinWait();
        }
        else if (attempt < 16)
        {
            Thread.yield();
        }
        else
        {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000L << Math.min(attempt - 16, 10));
        }
    }
}
