package io.rdmakv.systemtests.store;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every operation over keys of every size up to the limit and values from empty to the limit. */
class ProtocolTest
{
    private static LocalCluster cluster;
    private static KvClient client;

    @BeforeAll
    static void start()
    {
        cluster = new LocalCluster(io.rdmakv.server.config.ServerConfig.local(64L << 20));
        client = cluster.client();
    }

    @AfterAll
    static void stop()
    {
        client.close();
        cluster.close();
    }

    private static byte[] random(final int length, final long seed)
    {
        final byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void keysOfEverySizeUpToTheLimit()
    {
        final int max = client.maxKeyLength();
        assertEquals(1024, max);
        for (int length = 1; length <= max; length += length < 80 ? 1 : 37)
        {
            final byte[] key = random(length, length);
            final byte[] value = random(length % 97, -length);
            client.put(key, value);
            assertArrayEquals(value, client.get(key), "key of " + length + " bytes");
        }
        final byte[] longest = random(max, 4242);
        client.put(longest, longest);
        assertArrayEquals(longest, client.get(longest));
        assertTrue(client.delete(longest));
        assertNull(client.get(longest));
    }

    @Test
    void valuesFromEmptyToTheLimit()
    {
        final int max = client.maxValueLength();
        final int[] lengths = {0, 1, 7, 8, 47, 48, 49, 63, 64, 65, 1000, 4096, 65_536, 100_000, max - 1, max};
        final byte[] key = "values-of-every-size".getBytes();
        for (final int length : lengths)
        {
            final byte[] value = random(length, length);
            client.put(key, value);
            assertArrayEquals(value, client.get(key), "value of " + length + " bytes");
        }
        final byte[] maxKey = random(client.maxKeyLength(), 7);
        final byte[] maxValue = random(max, 8);
        client.put(maxKey, maxValue);
        assertArrayEquals(maxValue, client.get(maxKey), "largest key with largest value");
    }

    @Test
    void segmentFormsMatchTheArrayForms()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment key = arena.allocateFrom(ValueLayout.JAVA_BYTE, "segment-key".getBytes());
            final MemorySegment value = arena.allocateFrom(ValueLayout.JAVA_BYTE, random(3000, 3));
            client.put(key, value);
            assertArrayEquals(value.toArray(ValueLayout.JAVA_BYTE), client.get("segment-key".getBytes()));
            final MemorySegment dst = arena.allocate(4000);
            assertEquals(3000, client.get(key, dst));
            assertEquals(-1L, client.get(arena.allocateFrom(ValueLayout.JAVA_BYTE, "nope".getBytes()), dst));
            assertEquals(-(3000 + 2L), client.get(key, arena.allocate(100)), "too small a buffer says how long");
        }
    }

    @Test
    void deleteThenReinsertAndVersionsMove()
    {
        final byte[] key = "cycle".getBytes();
        for (int round = 0; round < 50; round++)
        {
            assertNull(client.getVersioned(key));
            assertTrue(client.putIfVersion(key, ("v" + round).getBytes(), KvClient.ABSENT));
            final Versioned v = client.getVersioned(key);
            assertArrayEquals(("v" + round).getBytes(), v.value());
            assertFalse(client.putIfVersion(key, "other".getBytes(), v.version() ^ 0x40));
            assertTrue(client.delete(key));
            assertFalse(client.delete(key));
        }
    }

    @Test
    void asyncApiKeepsManyOperationsInFlight()
    {
        final int n = 200;
        final java.util.List<java.util.concurrent.CompletableFuture<Void>> puts = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            puts.add(client.putAsync(("async-" + i).getBytes(), ("value-" + i).getBytes()));
        }
        puts.forEach(java.util.concurrent.CompletableFuture::join);
        final java.util.List<java.util.concurrent.CompletableFuture<byte[]>> gets = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            gets.add(client.getAsync(("async-" + i).getBytes()));
        }
        for (int i = 0; i < n; i++)
        {
            assertArrayEquals(("value-" + i).getBytes(), gets.get(i).join());
        }
        assertTrue(client.deleteAsync("async-0".getBytes()).join());
        assertNull(client.getAsync("async-0".getBytes()).join());
    }
}
