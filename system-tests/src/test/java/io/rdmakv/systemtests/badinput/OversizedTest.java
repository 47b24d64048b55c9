package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KeyTooLargeException;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.ValueTooLargeException;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys and values one byte over the limits are refused before anything is sent, saying the limit;
 * keys and values exactly at the limits round-trip.
 */
class OversizedTest
{
    private static KvServer server;
    private static KvClient client;
    private static int maxKey;
    private static int maxValue;

    @BeforeAll
    static void start()
    {
        server = LocalCluster.startNode();
        client = LocalCluster.client(server);
        maxKey = client.maxKeyLength();
        maxValue = client.maxValueLength();
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(client, server);
    }

    private static byte[] pattern(final int length, final int seed)
    {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++)
        {
            b[i] = (byte)(seed + i * 13 + (i >>> 9));
        }
        return b;
    }

    @Test
    void limitsAreTheLayoutsLimits()
    {
        assertEquals(KvBlockDescriptor.MAX_KEY_LENGTH, maxKey);
        assertEquals(KvBlockDescriptor.MAX_VALUE_LENGTH, maxValue);
    }

    @Test
    void keyOverTheLimitIsRefusedByEveryOperation()
    {
        final byte[] key = pattern(maxKey + 1, 1);
        final String says = "key of " + (maxKey + 1) + " bytes is over the limit of " + maxKey;
        final long rounds = client.stats().roundTrips();
        for (final Executable op : new Executable[] {
            () -> client.put(key, pattern(10, 2)),
            () -> client.get(key),
            () -> client.getVersioned(key),
            () -> client.delete(key),
            () -> client.putIfVersion(key, pattern(10, 2), KvClient.ABSENT),
            () -> client.put(MemorySegment.ofArray(key), MemorySegment.ofArray(pattern(10, 2))),
            () -> client.get(MemorySegment.ofArray(key), MemorySegment.ofArray(new byte[16]))})
        {
            final KeyTooLargeException e = assertThrows(KeyTooLargeException.class, op);
            assertEquals(says, e.getMessage());
        }
        assertEquals(rounds, client.stats().roundTrips(), "refused before anything went to the node");
        final byte[] truncated = Arrays.copyOf(key, maxKey);
        assertNull(client.get(truncated), "nothing was written under the key cut to the limit");
    }

    @Test
    void valueOverTheLimitIsRefusedAndWritesNothing()
    {
        final byte[] fresh = LocalCluster.bytes("fresh-key");
        final byte[] existing = LocalCluster.bytes("existing-key");
        final byte[] old = pattern(100, 3);
        client.put(existing, old);
        final byte[] big = pattern(maxValue + 1, 4);
        final String says = "value of " + (maxValue + 1) + " bytes is over the limit of " + maxValue;
        assertEquals(says, assertThrows(ValueTooLargeException.class, () -> client.put(fresh, big)).getMessage());
        assertEquals(says, assertThrows(ValueTooLargeException.class, () -> client.put(existing, big)).getMessage());
        assertEquals(says, assertThrows(ValueTooLargeException.class,
            () -> client.putIfVersion(existing, big, client.getVersioned(existing).version())).getMessage());
        assertEquals(says, assertThrows(ValueTooLargeException.class,
            () -> client.put(MemorySegment.ofArray(fresh), MemorySegment.ofArray(big))).getMessage());
        assertNull(client.get(fresh), "the new key stays absent");
        assertArrayEquals(old, client.get(existing), "the existing key keeps its old value");
    }

    @Test
    void keyAndValueExactlyAtTheLimitsRoundTrip()
    {
        final byte[] key = pattern(maxKey, 5);
        final byte[] value = pattern(maxValue, 6);
        assertEquals(KvBlockDescriptor.MAX_BLOCK_LENGTH, KvBlockDescriptor.blockLength(maxKey, maxValue),
            "the largest block a slot can describe");
        client.put(key, value);
        assertArrayEquals(value, client.get(key));
        final byte[] other = pattern(maxValue, 7);
        client.put(key, other);
        assertArrayEquals(other, client.get(key), "and can be replaced by another of the same size");
        final byte[] into = new byte[maxValue];
        assertEquals(maxValue, client.get(MemorySegment.ofArray(key), MemorySegment.ofArray(into)));
        assertArrayEquals(other, into);
        assertTrue(client.delete(key));
        assertNull(client.get(key));
    }

    @Test
    void emptyValueIsAValueNotAnAbsence()
    {
        final byte[] key = LocalCluster.bytes("empty-value");
        client.put(key, new byte[0]);
        assertArrayEquals(new byte[0], client.get(key));
    }
}
