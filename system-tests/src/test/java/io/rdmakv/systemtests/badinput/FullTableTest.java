package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.TableFullException;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The smallest node's index (64 buckets, 448 slots) fills before its data area does: an insert whose
 * two candidate groups are full fails with TableFullException and writes nothing; every key inserted
 * before stays readable and updatable; deleting keys makes room again.
 */
class FullTableTest
{
    private static final int CHUNK = 1 << 18;

    private KvServer server;
    private KvClient client;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client, server);
    }

    private static byte[] key(final int i)
    {
        return LocalCluster.bytes("t" + i);
    }

    private static byte[] value(final int i, final int version)
    {
        return LocalCluster.bytes("v" + i + "." + version);
    }

    private long[] groups(final byte[] key)
    {
        final long hash = KeyHash.hash(key);
        final long count = server.geometry().groupCount();
        return new long[] {KeyHash.group1(hash, count), KeyHash.group2(hash, count)};
    }

    @Test
    void insertIntoFullGroupsFailsAndDeletesMakeRoom()
    {
        server = LocalCluster.startNode(ServerConfig.local(RegionGeometry.minimumMemory(CHUNK)).withChunkSize(CHUNK));
        client = LocalCluster.client(server);
        final RegionGeometry geometry = server.geometry();
        assertEquals(448, geometry.slotCount());

        final List<Integer> inserted = new ArrayList<>();
        TableFullException full = null;
        int failed = -1;
        for (int i = 0; i < geometry.slotCount() + 1 && full == null; i++)
        {
            try
            {
                client.put(key(i), value(i, 1));
                inserted.add(i);
            }
            catch (final TableFullException e)
            {
                full = e;
                failed = i;
            }
        }
        assertTrue(full != null, "a full index refuses an insert before " + (geometry.slotCount() + 1) + " keys");
        assertEquals("put: the index of node " + LocalCluster.address(server) + " has no free slot for this key",
            full.getMessage());
        assertTrue(inserted.size() > geometry.slotCount() / 2, "only " + inserted.size() + " keys fit");
        assertNull(client.get(key(failed)), "the refused insert wrote nothing");
        assertEquals(0, server.counters().allocFailures(), "the index filled, not the data area");

        for (final int i : inserted)
        {
            assertArrayEquals(value(i, 1), client.get(key(i)), "key t" + i);
            client.put(key(i), value(i, 2));
        }
        for (final int i : inserted)
        {
            assertArrayEquals(value(i, 2), client.get(key(i)), "updated key t" + i);
        }

        final Set<Long> crowded = Set.of(groups(key(failed))[0], groups(key(failed))[1]);
        final List<Integer> deleted = new ArrayList<>();
        for (final int i : inserted)
        {
            final long[] g = groups(key(i));
            if (crowded.contains(g[0]) || crowded.contains(g[1]))
            {
                assertTrue(client.delete(key(i)));
                deleted.add(i);
            }
        }
        assertTrue(deleted.size() >= 2 * 14, "the two full groups held " + deleted.size() + " keys");
        client.put(key(failed), value(failed, 1));
        assertArrayEquals(value(failed, 1), client.get(key(failed)), "the refused key fits now");
        for (final int i : inserted)
        {
            if (deleted.contains(i))
            {
                assertNull(client.get(key(i)), "deleted key t" + i);
            }
            else
            {
                assertArrayEquals(value(i, 2), client.get(key(i)), "key t" + i + " untouched by the deletes");
            }
        }
    }
}
