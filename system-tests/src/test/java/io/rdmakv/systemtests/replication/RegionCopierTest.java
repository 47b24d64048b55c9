package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.replication.CopyFailedException;
import io.rdmakv.server.replication.CopyReport;
import io.rdmakv.server.replication.RegionCopier;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.testsupport.tls.TlsFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two nodes of equal memory on the test transport: node A filled by a KvClient, node B made equal to it by
 * {@link RegionCopier} passes (re-replication). Equality is checked over RDMA, as a peer sees both
 * regions ({@link RegionView}): every slot word, and the bytes of every block a slot references; and by a client
 * of B, which reads every key A holds.
 */
class RegionCopierTest
{
    private static final long MEMORY = 64L << 20;
    private static final int KEYS = 3000;
    private static final int MAX_VALUE = 8 * 1024;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(open.reversed().toArray(AutoCloseable[]::new));
    }

    @Test
    void copiesEverySlotAndBlockThenFindsNothingToDo()
    {
        final KvServer a = node(MEMORY);
        final KvServer b = node(MEMORY);
        final Map<String, byte[]> expected = fill(a, KEYS);
        final RegionView viewA = view(a);
        final RegionView viewB = view(b);
        final long lockOffset = a.geometry().groupRegionOffset(3) + BucketDescriptor.INSERT_LOCK_OFFSET;
        viewB.flip(lockOffset); // a stale insert lock on B: never copied, cleared

        final CopyReport first = b.regionCopier().pass(primary(a));
        System.out.printf("RegionCopierTest: first pass over %d keys: %s, %.1f MiB/s (%s)%n", expected.size(),
            first, first.mibPerSecond(), LocalCluster.TRANSPORT);
        final int used = viewA.usedSlots().size();
        assertEquals(expected.size(), used);
        assertCounted(used, first.blocksCopied(), first);
        assertEquals(used, first.slotsChanged(), first.toString());
        assertEquals(0, first.skippedBlocks(), first.toString());
        assertCounted(a.geometry().slotCount(), first.slotsCompared(), first);
        assertSameRegions(viewA, viewB);
        assertEquals(0, viewB.longAt(lockOffset));
        readsEveryKey(b, expected);

        final CopyReport second = b.regionCopier().pass(primary(a));
        assertTrue(second.converged(), second.toString());
        assertEquals(0, second.blocksCopied());

        int deleted = 0;
        try (KvClient client = LocalCluster.client(a))
        {
            for (int i = 0; i < 100; i++)
            {
                client.delete(LocalCluster.bytes(key(i)));
                deleted += expected.remove(key(i)) != null ? 1 : 0;
            }
        }
        final CopyReport third = b.regionCopier().pass(primary(a));
        assertEquals(deleted, third.slotsCleared(), third.toString());
        assertEquals(deleted, third.slotsChanged(), third.toString());
        assertEquals(0, third.blocksCopied(), third.toString());
        assertSameRegions(viewA, viewB);
        readsEveryKey(b, expected);
    }

    @Test
    void passesWhileWritersWorkThenOneMorePassMakesTheNodesEqual() throws Exception
    {
        final KvServer a = node(MEMORY);
        final KvServer b = node(MEMORY);
        fill(a, KEYS / 2);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong writes = new AtomicLong();
        final List<Thread> writers = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();
        try (KvClient client = LocalCluster.client(a))
        {
            for (int t = 0; t < 4; t++)
            {
                final SplittableRandom random = new SplittableRandom(100 + t);
                writers.add(Thread.ofPlatform().name("writer-" + t).start(() ->
                {
                    try
                    {
                        while (!stop.get())
                        {
                            final byte[] k = LocalCluster.bytes(key(random.nextInt(KEYS / 2)));
                            if (random.nextInt(10) < 7)
                            {
                                client.put(k, value(random));
                            }
                            else
                            {
                                client.delete(k);
                            }
                            writes.incrementAndGet();
                        }
                    }
                    catch (final Throwable e)
                    {
                        synchronized (failures)
                        {
                            failures.add(e);
                        }
                    }
                }));
            }
            final List<CopyReport> busy = new ArrayList<>();
            while (busy.size() < 3 || writes.get() < 2000)
            {
                busy.add(b.regionCopier().pass(primary(a)));
            }
            stop.set(true);
            for (final Thread w : writers)
            {
                w.join();
            }
            System.out.printf("RegionCopierTest: %d passes during %d writes: %s%n", busy.size(), writes.get(), busy);
        }
        assertEquals(List.of(), failures);
        final CopyReport sealed = b.regionCopier().pass(primary(a));
        System.out.println("RegionCopierTest: the pass after writers stopped: " + sealed);
        assertEquals(0, sealed.skippedBlocks(), sealed.toString());
        final RegionView viewA = view(a);
        assertSameRegions(viewA, view(b));
        assertTrue(b.regionCopier().pass(primary(a)).converged());
    }

    @Test
    void damagedBlockIsSkippedAndReportedNeverCopied()
    {
        final KvServer a = node(MEMORY);
        final KvServer b = node(MEMORY);
        final Map<String, byte[]> expected = fill(a, 300);
        final RegionView viewA = view(a);
        final RegionView viewB = view(b);
        final RegionView.Slot victim = viewA.find(LocalCluster.bytes(key(7)));
        viewA.flip(viewA.valueOffset(victim) + 3);
        final byte[] damaged = viewA.bytes(victim.blockOffset(), victim.blockLength());
        // a slot that points past the data area: a READ there would break the copier's session
        final RegionView.Slot astray = viewA.find(LocalCluster.bytes(key(8)));
        final long outside = SlotWord.encode(SlotWord.fingerprint(astray.word()), 1,
            a.geometry().dataLength() / SlotWord.UNIT + 10);
        viewA.swapSlot(astray, outside);

        final CopyReport report = b.regionCopier().pass(primary(a));
        assertEquals(2, report.skippedBlocks(), report.toString());
        assertCounted(expected.size() - 2, report.blocksCopied(), report);
        assertEquals(SlotWord.EMPTY, viewB.longAt(astray.slotOffset()), "the word past the data area is not copied");
        assertEquals(SlotWord.EMPTY, viewB.longAt(victim.slotOffset()), "the damaged block's word is not copied");
        assertFalse(Arrays.equals(damaged, viewB.bytes(victim.blockOffset(), victim.blockLength())),
            "the damaged bytes are not copied");
        assertSameRegions(viewA, viewB, victim.slotOffset(), astray.slotOffset());

        final CopyReport again = b.regionCopier().pass(primary(a));
        assertEquals(2, again.skippedBlocks(), again.toString());
        assertEquals(0, again.slotsChanged(), again.toString());
        assertFalse(again.converged());
    }

    @Test
    void primaryOfAnotherGeometryIsRefused()
    {
        final KvServer a = node(MEMORY);
        final KvServer b = node(MEMORY / 2);
        fill(a, 50);
        final RegionView viewB = view(b);
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> b.regionCopier().pass(primary(a)));
        assertTrue(e.getMessage().contains(a.geometry().toString()), e.getMessage());
        assertTrue(e.getMessage().contains(b.geometry().toString()), e.getMessage());
        assertEquals(List.of(), viewB.usedSlots(), "nothing copied");
        assertNotEquals(a.geometry(), b.geometry());
    }

    @Test
    void copiesOverTlsWithTheClusterTokenAndIsRefusedWithAnother()
    {
        final TlsFixture certs = TlsFixture.get();
        final ServerConfig.ServerTls tls = new ServerConfig.ServerTls(certs.node().certChain(), certs.node().key(),
            certs.ca());
        final KvServer a = node(MEMORY / 2, "cluster-token", tls);
        final KvServer b = node(MEMORY / 2, "cluster-token", tls);
        final KvServer stranger = node(MEMORY / 2, "another-token", tls);
        final Map<String, byte[]> expected = fill(LocalCluster.clientConfig(LocalCluster.address(a))
            .withAuthToken("cluster-token").withTls(certs.ca(), certs.client().certChain(), certs.client().key()), 200);

        final CopyReport report = b.regionCopier().pass(primary(a));
        assertEquals(expected.size(), report.slotsChanged(), report.toString());
        assertEquals(0, report.skippedBlocks(), report.toString());

        final CopyFailedException refused = assertThrows(CopyFailedException.class,
            () -> stranger.regionCopier().pass(primary(a)));
        assertTrue(refused.getMessage().contains("cannot open a session with primary"), refused.getMessage());
        assertEquals(0, stranger.usedSlots());
    }

    // ---- fixtures ---------------------------------------------------------------------------

    private KvServer node(final long memory)
    {
        return node(memory, "", null);
    }

    private KvServer node(final long memory, final String token, final ServerConfig.ServerTls tls)
    {
        final ServerConfig config = ServerConfig.local(memory).toBuilder()
            .authToken(token)
            .tls(tls)
            .memoryWindows(MemoryWindowMode.OFF) // so that RegionView can damage a block as a stray WRITE would
            .graceMillis(500) // room for a loaded test machine: a chunk is redone past half of it
            .sessionQuotaBytes(RegionGeometry.forMemory(memory).dataLength())
            .build();
        final KvServer server = LocalCluster.startNode(config);
        open.add(server);
        return server;
    }

    private RegionView view(final KvServer server)
    {
        final RegionView view = new RegionView(server);
        open.add(view);
        return view;
    }

    private static InetSocketAddress primary(final KvServer server)
    {
        return new InetSocketAddress("127.0.0.1", server.port());
    }

    /** Puts {@code keys} keys (values of 10 B..8 KiB), updates every fifth twice and deletes every tenth. */
    private static Map<String, byte[]> fill(final KvServer server, final int keys)
    {
        return fill(LocalCluster.clientConfig(LocalCluster.address(server)), keys);
    }

    private static Map<String, byte[]> fill(final KvClientConfig config, final int keys)
    {
        final SplittableRandom random = new SplittableRandom(42);
        final Map<String, byte[]> expected = new HashMap<>();
        try (KvClient client = KvClient.connect(config))
        {
            for (int i = 0; i < keys; i++)
            {
                final byte[] v = value(random);
                client.put(LocalCluster.bytes(key(i)), v);
                expected.put(key(i), v);
            }
            for (int round = 0; round < 2; round++)
            {
                for (int i = 0; i < keys; i += 5)
                {
                    final byte[] v = value(random);
                    client.put(LocalCluster.bytes(key(i)), v);
                    expected.put(key(i), v);
                }
            }
            for (int i = 3; i < keys; i += 10)
            {
                client.delete(LocalCluster.bytes(key(i)));
                expected.remove(key(i));
            }
        }
        return expected;
    }

    private static String key(final int i)
    {
        return "key-" + i;
    }

    private static byte[] value(final SplittableRandom random)
    {
        final byte[] v = new byte[random.nextInt(10, MAX_VALUE + 1)];
        random.nextBytes(v);
        return v;
    }

    /**
     * Every slot word of B equals A's (but those at {@code exceptSlots}), B's insert locks are free, and every block
     * A's slots reference is byte-equal on B.
     */
    private static void assertSameRegions(final RegionView a, final RegionView b, final long... exceptSlots)
    {
        final Set<Long> except = Arrays.stream(exceptSlots).boxed().collect(Collectors.toSet());
        final RegionGeometry g = a.geometry();
        assertEquals(g, b.geometry());
        final ByteBuffer indexA = ByteBuffer.wrap(a.bytes(g.indexOffset(), (int)g.indexLength()))
            .order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer indexB = ByteBuffer.wrap(b.bytes(g.indexOffset(), (int)g.indexLength()))
            .order(ByteOrder.LITTLE_ENDIAN);
        int differing = 0;
        String first = null;
        for (long group = 0; group < g.groupCount(); group++)
        {
            final int lock = (int)(g.groupRegionOffset(group) - g.indexOffset() + BucketDescriptor.INSERT_LOCK_OFFSET);
            assertEquals(0, indexB.getLong(lock), "B's insert lock of group " + group);
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long offset = g.slotRegionOffset(group, s);
                final int at = (int)(offset - g.indexOffset());
                if (!except.contains(offset) && indexA.getLong(at) != indexB.getLong(at))
                {
                    differing++;
                    first = first != null ? first : "group " + group + " slot " + s + ": A " +
                        SlotWord.toString(indexA.getLong(at)) + ", B " + SlotWord.toString(indexB.getLong(at));
                }
            }
        }
        assertEquals(0, differing, "slots differing, the first: " + first);
        for (final RegionView.Slot slot : a.usedSlots())
        {
            if (!except.contains(slot.slotOffset()))
            {
                assertArrayEquals(a.bytes(slot.blockOffset(), slot.blockLength()),
                    b.bytes(slot.blockOffset(), slot.blockLength()), "block of " + SlotWord.toString(slot.word()));
            }
        }
    }

    /** A client of B reads every key with A's value: B serves what A holds. */
    private static void readsEveryKey(final KvServer b, final Map<String, byte[]> expected)
    {
        try (KvClient client = LocalCluster.client(b))
        {
            for (final Map.Entry<String, byte[]> e : expected.entrySet())
            {
                assertArrayEquals(e.getValue(), client.get(LocalCluster.bytes(e.getKey())), e.getKey());
            }
        }
    }

    /**
     * {@code count} is {@code expected}: exactly so when no chunk was redone, at least so when one was (a redone
     * chunk compares its slots again and copies again what its slow attempt copied).
     */
    private static void assertCounted(final long expected, final long count, final CopyReport report)
    {
        if (report.chunksRedone() == 0)
        {
            assertEquals(expected, count, report.toString());
        }
        else
        {
            assertTrue(count >= expected, expected + " at least: " + report);
        }
    }
}
