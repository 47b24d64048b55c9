package io.rdmakv.systemtests.store;

import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KvClientBasicsTest
{
    private static LocalCluster cluster;
    private static KvClient client;

    @BeforeAll
    static void start()
    {
        cluster = new LocalCluster();
        client = cluster.client();
    }

    @AfterAll
    static void stop()
    {
        client.close();
        cluster.close();
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetUpdateDelete()
    {
        assertNull(client.get(b("alpha")));
        client.put(b("alpha"), b("one"));
        assertArrayEquals(b("one"), client.get(b("alpha")));
        client.put(b("alpha"), b("two, longer than one"));
        assertArrayEquals(b("two, longer than one"), client.get(b("alpha")));
        assertTrue(client.delete(b("alpha")));
        assertNull(client.get(b("alpha")));
        assertFalse(client.delete(b("alpha")));
    }

    @Test
    void putIfVersionSucceedsOnlyOnTheVersionRead()
    {
        assertTrue(client.putIfVersion(b("beta"), b("v1"), KvClient.ABSENT));
        assertFalse(client.putIfVersion(b("beta"), b("v1-again"), KvClient.ABSENT));
        final Versioned v1 = client.getVersioned(b("beta"));
        assertArrayEquals(b("v1"), v1.value());
        assertTrue(client.putIfVersion(b("beta"), b("v2"), v1.version()));
        assertFalse(client.putIfVersion(b("beta"), b("v3"), v1.version()));
        final Versioned v2 = client.getVersioned(b("beta"));
        assertArrayEquals(b("v2"), v2.value());
        assertNotEquals(v1.version(), v2.version());
    }

    @Test
    void manyKeysRoundTrip()
    {
        for (int i = 0; i < 2000; i++)
        {
            client.put(b("key-" + i), b("value-" + i));
        }
        for (int i = 0; i < 2000; i++)
        {
            assertArrayEquals(b("value-" + i), client.get(b("key-" + i)), "key-" + i);
        }
        final ClientStats stats = client.stats();
        assertTrue(stats.roundTrips() > 0);
        assertEquals(0, stats.errors());
    }
}
