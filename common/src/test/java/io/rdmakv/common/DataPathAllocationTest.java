package io.rdmakv.common;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.BucketGroup;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.SlotWord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data-path helpers allocate nothing: hashing, slot encode/decode, bucket offsets and scans, block
 * write and validate. Measured with the JVM's per-thread allocation counter after a warm-up, so what is
 * counted is the steady state the client runs in.
 */
class DataPathAllocationTest
{
    private static final int WARM_UP = 30_000;
    private static final int MEASURED = 50_000;
    /** Slack for the counter's own granularity; anything allocated per iteration would be megabytes. */
    private static final long SLACK_BYTES = 4096;

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment segment = arena.allocate(1 << 16, 64);
    private final MemorySegment keySegment = arena.allocate(64);
    private final byte[] key = "user:1234567890".getBytes(StandardCharsets.UTF_8);
    private final byte[] value = new byte[700];
    private final KvBlock block = new KvBlock();
    private final BucketGroup group = new BucketGroup();
    private long sink;

    @AfterEach
    void close()
    {
        arena.close();
    }

    private long iteration(final int i)
    {
        final long h = KeyHash.hash(key) ^ KeyHash.hash(keySegment, 0, key.length);
        final long g1 = KeyHash.group1(h, 1 << 20);
        final long g2 = KeyHash.group2(h, 1 << 20);
        final long word = SlotWord.encode(KeyHash.fingerprint(h), 12, 1 + (i & 1023));
        final long offset = BucketDescriptor.slotOffset(g1, i % BucketDescriptor.SLOTS_PER_GROUP) +
            BucketDescriptor.groupOffsetForHash(g2, 1 << 20);

        group.wrap(segment, 0).slot(i % 14, word);
        final int found = group.indexOfFingerprint(SlotWord.fingerprint(word), 0) + group.indexOfEmpty();

        final int length = block.wrap(segment, 1024).write(key, value);
        final int valid = block.wrap(segment, 1024).validate(key, 0, key.length, SlotWord.blockLength(word)) +
            block.validate(keySegment, 0, key.length, length);
        return offset + found + valid + SlotWord.blockOffset(word) + SlotWord.lengthUnits(word) + KeyHash.partition(h, 64);
    }

    @Test
    void helpersAllocateNothing()
    {
        MemorySegment.copy(key, 0, keySegment, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, key.length);
        final int length = block.wrap(segment, 1024).write(key, value);
        assertEquals(KvBlock.VALID, block.validate(key, 0, key.length, length));
        assertEquals(KvBlock.VALID, block.validate(keySegment, 0, key.length, length));
        for (int i = 0; i < WARM_UP; i++)
        {
            sink += iteration(i);
        }
        final long thread = Thread.currentThread().threadId();
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < MEASURED; i++)
        {
            sink += iteration(i);
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(allocated < SLACK_BYTES, "allocated " + allocated + " bytes over " + MEASURED + " iterations");
        assertTrue(sink != 42);
    }
}
