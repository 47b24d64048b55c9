package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.MovedHeader;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.replication.CopyReport;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node copying a primary (a spare made copying) copies a partition frozen for a move as it is: frozen words
 * with their blocks and the bit, frozen empty slots, and the MOVED marks of groups whose partition left, so a
 * copy promoted later freezes, and turns readers back, as its primary did (docs/growth.md §6). The frozen state is
 * made with RDMA CASes on the primary's index, as the freezer's.
 */
class FrozenCopyTest
{
    private static final long MEMORY = 8L << 20;
    private static final int KEYS = 40;

    private KvServer primary;
    private KvServer copy;

    @AfterEach
    void stop()
    {
        if (copy != null)
        {
            copy.close();
        }
        if (primary != null)
        {
            primary.close();
        }
    }

    @Test
    void aCopyTakesFrozenWordsFrozenEmptySlotsAndMovedMarksAsTheyAre() throws IOException
    {
        primary = KvServer.start(ServerConfig.local(MEMORY));
        copy = KvServer.start(ServerConfig.local(MEMORY));
        try (KvClient client = KvClient.connect(KvClientConfig.of("127.0.0.1:" + primary.port()).withTransport("tcp")))
        {
            for (int i = 0; i < KEYS; i++)
            {
                client.put(key(i), key(i));
            }
        }
        final long frozenSlot;
        final long frozenWord;
        final long emptySlot;
        final long header;
        try (RegionView atPrimary = new RegionView(primary))
        {
            final RegionView.Slot slot = atPrimary.find(key(0));
            frozenSlot = slot.slotOffset();
            frozenWord = slot.word() | SlotWord.MOVING;
            atPrimary.swapSlot(slot, frozenWord);
            final long group = (frozenSlot - atPrimary.geometry().indexOffset()) / BucketDescriptor.GROUP_LENGTH;
            long empty = -1;
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP && empty < 0; s++)
            {
                final long offset = atPrimary.geometry().slotRegionOffset(group, s);
                empty = atPrimary.longAt(offset) == SlotWord.EMPTY ? offset : -1;
            }
            assertTrue(empty > 0, "the group has an empty slot");
            emptySlot = empty;
            atPrimary.swapSlot(new RegionView.Slot(emptySlot, SlotWord.EMPTY, 0, 0), SlotWord.FROZEN_EMPTY);
            header = atPrimary.geometry().groupRegionOffset(group) + BucketDescriptor.MOVED_HEADER_OFFSET;
            atPrimary.swapSlot(new RegionView.Slot(header, 0L, 0, 0), MovedHeader.moved(5));
        }

        final CopyReport report = copy.regionCopier().pass(new InetSocketAddress("127.0.0.1", primary.port()));
        assertEquals(0, report.skippedBlocks(), report.toString());
        try (RegionView atCopy = new RegionView(copy))
        {
            assertEquals(frozenWord, atCopy.longAt(frozenSlot), "the frozen word, bit and all");
            assertArrayEquals(key(0), atCopy.keyOf(atCopy.find(key(0))), "and its block");
            assertEquals(SlotWord.FROZEN_EMPTY, atCopy.longAt(emptySlot), "the frozen empty slot");
            assertEquals(MovedHeader.moved(5), atCopy.longAt(header), "the MOVED mark");
        }
        assertEquals(KEYS, copy.usedSlots(), "a frozen empty slot is no used slot");
    }

    private static byte[] key(final int i)
    {
        return ("frozen-copy-" + i).getBytes(StandardCharsets.UTF_8);
    }
}
