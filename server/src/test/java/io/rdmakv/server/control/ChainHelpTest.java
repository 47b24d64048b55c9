package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.HelpMessage;
import io.rdmakv.common.protocol.HelpReplyMessage;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.TestRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * HELP on a primary ({@link ChainHelp}): a live writer's whole block of the asked key is finished; a gone writer's is
 * refused (the asker puts the backups back); a live writer's whole block of *another* key (two inserts raced for one
 * empty slot, docs/limitations.md "An insert can wait behind another key's insert") is answered CHANGED and left to
 * its writer: refusing it had the asker undo a decided write whose writer then won the primary.
 */
class ChainHelpTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long LIVE = 11;
    private static final long GONE = 12;

    private final TestRegion region = new TestRegion();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, TimeUnit.MILLISECONDS.toNanos(50),
        SpaceTiming.reclaimQuarantineNanos(TimeUnit.MILLISECONDS.toNanos(50)));
    private final Set<Long> live = new HashSet<>(Set.of(LIVE));
    private final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
    private final ServerCounters counters = new ServerCounters();
    private final ChainHelp help = new ChainHelp(GEOMETRY, IndexSegments.whole(GEOMETRY), atomics,
        new FinishRule(region.segment(), GEOMETRY, IndexSegments.whole(GEOMETRY), allocator, live::contains), counters);

    @AfterEach
    void close()
    {
        region.close();
    }

    /** A key other than {@code j} one of whose candidate groups is {@code j}'s first. */
    private static byte[] sharing(final byte[] j)
    {
        final long group = TestRegion.group1(j);
        for (int i = 0; ; i++)
        {
            final byte[] k = key("k-" + i);
            if (KeyHash.isCandidateGroup(KeyHash.hash(k), group, GEOMETRY.groupCount()) &&
                KeyHash.fingerprint(KeyHash.hash(k)) != KeyHash.fingerprint(KeyHash.hash(j)))
            {
                return k;
            }
        }
    }

    private long slot(final long group)
    {
        return GEOMETRY.slotRegionOffset(group, 3);
    }

    @Test
    void anotherKeysLiveBlockIsTheAskersLossNotRefused()
    {
        final Extent grant = allocator.grant(GEOMETRY.chunkSize(), GEOMETRY.chunkSize(), 0, LIVE);
        final byte[] j = key("j");
        final byte[] k = sharing(j);
        final long group = TestRegion.group1(j);
        final long word = TestRegion.slotWord(j, grant.offset(), region.writeBlock(grant.offset(), j, 10));
        final HelpReplyMessage reply = help.help(new HelpMessage(1, group, 3, SlotWord.EMPTY, word, k));
        assertEquals(HelpReplyMessage.Outcome.CHANGED, reply.outcome(), "the asker lost the slot to a live writer");
        assertEquals(SlotWord.EMPTY, reply.slot());
        assertEquals(SlotWord.EMPTY, atomics.get(slot(group)), "left to its own writer");
        assertEquals(0, counters.get(ServerCounter.CHAIN_HELPS_REFUSED));
    }

    @Test
    void aGoneWritersBlockIsRefusedWhateverItsKey()
    {
        final Extent grant = allocator.grant(GEOMETRY.chunkSize(), GEOMETRY.chunkSize(), 0, GONE);
        final byte[] j = key("j");
        final long group = TestRegion.group1(j);
        final long word = TestRegion.slotWord(j, grant.offset(), region.writeBlock(grant.offset(), j, 10));
        assertEquals(HelpReplyMessage.Outcome.REFUSED,
            help.help(new HelpMessage(1, group, 3, SlotWord.EMPTY, word, sharing(j))).outcome());
        assertEquals(HelpReplyMessage.Outcome.REFUSED,
            help.help(new HelpMessage(2, group, 3, SlotWord.EMPTY, word, j)).outcome());
        assertEquals(SlotWord.EMPTY, atomics.get(slot(group)));
    }

    @Test
    void aLiveWritersBlockOfTheAskedKeyIsFinished()
    {
        final Extent grant = allocator.grant(GEOMETRY.chunkSize(), GEOMETRY.chunkSize(), 0, LIVE);
        final byte[] j = key("j");
        final long group = TestRegion.group1(j);
        final long word = TestRegion.slotWord(j, grant.offset(), region.writeBlock(grant.offset(), j, 10));
        assertEquals(HelpReplyMessage.Outcome.HELPED,
            help.help(new HelpMessage(1, group, 3, SlotWord.EMPTY, word, j)).outcome());
        assertEquals(word, atomics.get(slot(group)));
    }
}
