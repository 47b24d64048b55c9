package io.rdmakv.server.control;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.DamageScanOkMessage;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.RepairReplyMessage;
import io.rdmakv.common.protocol.RepairReplyMessage.Outcome;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.space.TestRegion;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * REPAIR and DAMAGE_SCAN through the control agent, driven by hand as in {@link ControlAgentTest}: a region
 * with a victim key whose slot or block a test damages, requests over a real {@code tcp} queue pair, a clock
 * the test moves. The node clears a slot only when it proves the slot is the key's and its block damaged.
 */
class RepairControlTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final byte[] KEY = key("victim");
    private static final long BLOCK = 4096;
    private static final int SLOT = 3;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ControlAgent agent;
    private ControlPeer peer;
    private long requestId;

    @BeforeEach
    void connect()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(256);
        final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
        agent = new ControlAgent(cq, new DataAreaAllocator(GEOMETRY.dataLength(), KvBlockDescriptor.ALIGNMENT, GRACE,
            SpaceTiming.reclaimQuarantineNanos(GRACE)), new IndexScanner(atomics, GEOMETRY),
            new LiveBlockCheck(region.segment(), GEOMETRY),
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock,
            GEOMETRY.dataLength());
        peer = new ControlPeer();
        final ServerSession session = AgentDriver.connect(agent, pd, cq, peer, 7, "test peer");
    }

    @AfterEach
    void close()
    {
        agent.onClose();
        CloseHelper.closeAll(peer, cq, pd, context, region);
    }

    @Test
    void aSlotPointingOutsideTheDataAreaIsClearedAtOnceAndCounted()
    {
        final long word = outsideWord(KEY);
        region.slot(TestRegion.group1(KEY), SLOT, word);
        final RepairReplyMessage reply = repair(TestRegion.group1(KEY), SLOT, word, KEY);
        assertEquals(Outcome.REPAIRED, reply.outcome(), reply.text());
        assertEquals(SlotDamage.OUTSIDE_DATA_AREA, reply.damage());
        assertEquals(SlotWord.EMPTY, region.slot(TestRegion.group1(KEY), SLOT));
        assertEquals(1, counters.get(ServerCounter.REPAIRED_SLOTS));
        assertEquals(0, counters.get(ServerCounter.DEFERRED_REPAIRS) + counters.get(ServerCounter.REFUSED_REPAIRS));
    }

    /** A frozen slot (a partition being moved) stays frozen: its repair leaves the bare bit, never a free slot. */
    @Test
    void aFrozenDamagedSlotIsRepairedToAFrozenEmptySlot()
    {
        final long word = outsideWord(KEY) | SlotWord.MOVING;
        region.slot(TestRegion.group1(KEY), SLOT, word);
        final RepairReplyMessage reply = repair(TestRegion.group1(KEY), SLOT, word, KEY);
        assertEquals(Outcome.REPAIRED, reply.outcome(), reply.text());
        assertEquals(SlotWord.FROZEN_EMPTY, region.slot(TestRegion.group1(KEY), SLOT), "no insert may take it");

        final RepairReplyMessage again = repair(TestRegion.group1(KEY), SLOT, SlotWord.FROZEN_EMPTY, KEY);
        assertRefused(RepairRefusal.NOT_DAMAGED, again);
        assertEquals(SlotWord.FROZEN_EMPTY, region.slot(TestRegion.group1(KEY), SLOT));
    }

    @Test
    void aBlockFailingItsChecksumIsClearedOnceItStayedDamagedForAGracePeriod()
    {
        final long group = TestRegion.group2(KEY);
        final long word = region.insert(KEY, BLOCK, 100, group, SLOT);
        flipValueByte(BLOCK, KEY);

        final RepairReplyMessage first = repair(group, SLOT, word, KEY);
        assertEquals(Outcome.RETRY, first.outcome(), first.text());
        assertEquals(SlotDamage.BAD_CHECKSUM, first.damage());
        assertEquals(TimeUnit.NANOSECONDS.toMillis(GRACE) + 1, first.retryAfterMillis());
        assertEquals(word, region.slot(group, SLOT), "not yet: first sighting");

        clock.advance(GRACE / 2);
        assertEquals(Outcome.RETRY, repair(group, SLOT, word, KEY).outcome(), "half a grace period is not enough");
        clock.advance(GRACE / 2);
        final RepairReplyMessage second = repair(group, SLOT, word, KEY);
        assertEquals(Outcome.REPAIRED, second.outcome(), second.text());
        assertEquals(SlotWord.EMPTY, region.slot(group, SLOT));
        assertEquals(1, counters.get(ServerCounter.REPAIRED_SLOTS));
        assertEquals(2, counters.get(ServerCounter.DEFERRED_REPAIRS));
        assertEquals(0, agent.counters().get(ServerCounter.REFUSED_REPAIRS));
    }

    @Test
    void damagedKeyBytesThatCouldNotLiveInTheSlotProveNothingAndTheSlotIsRepaired()
    {
        final long group = TestRegion.group1(KEY);
        final long word = region.insert(KEY, BLOCK, 100, group, SLOT);
        final long keyByte = GEOMETRY.dataOffset() + BLOCK + KvBlockDescriptor.KEY_OFFSET;
        region.segment().set(LittleEndian.U8, keyByte, (byte)'W'); // "Wictim": hashes elsewhere
        assertEquals(Outcome.RETRY, repair(group, SLOT, word, KEY).outcome());
        clock.advance(GRACE);
        assertEquals(Outcome.REPAIRED, repair(group, SLOT, word, KEY).outcome());
    }

    @Test
    void aHealthySlotIsRefusedAndUnchanged()
    {
        final long group = TestRegion.group1(KEY);
        final long word = region.insert(KEY, BLOCK, 100, group, SLOT);
        final RepairReplyMessage reply = repair(group, SLOT, word, KEY);
        assertRefused(RepairRefusal.NOT_DAMAGED, reply);
        assertEquals(word, region.slot(group, SLOT));
        clock.advance(10 * GRACE);
        assertRefused(RepairRefusal.NOT_DAMAGED, repair(group, SLOT, word, KEY));
        assertEquals(word, region.slot(group, SLOT));
        assertEquals(2, counters.get(ServerCounter.REFUSED_REPAIRS));
        assertEquals(0, counters.get(ServerCounter.REPAIRED_SLOTS));
    }

    @Test
    void aSlotInAGroupThatIsNotTheKeysIsRefused()
    {
        long group = 0;
        while (group == TestRegion.group1(KEY) || group == TestRegion.group2(KEY))
        {
            group++;
        }
        final long word = outsideWord(KEY);
        region.slot(group, SLOT, word);
        assertRefused(RepairRefusal.NOT_THE_KEYS_GROUP, repair(group, SLOT, word, KEY));
        assertEquals(word, region.slot(group, SLOT), "damaged, but not this key's to repair");
        assertRefused(RepairRefusal.NO_SUCH_GROUP, repair(GEOMETRY.groupCount(), SLOT, word, KEY));
    }

    @Test
    void aWordOfAnotherFingerprintOrOneThatChangedIsRefused()
    {
        final long group = TestRegion.group1(KEY);
        final long word = outsideWord(KEY);
        final long otherFingerprint = SlotWord.pack(SlotWord.fingerprint(word) ^ 1, SlotWord.lengthUnits(word),
            SlotWord.offsetUnits(word));
        region.slot(group, SLOT, otherFingerprint);
        assertRefused(RepairRefusal.NOT_THE_KEYS_FINGERPRINT, repair(group, SLOT, otherFingerprint, KEY));
        assertRefused(RepairRefusal.SLOT_CHANGED, repair(group, SLOT, word, KEY));
        assertEquals(otherFingerprint, region.slot(group, SLOT));
    }

    @Test
    void aDamagedBlockWhoseReadableKeyIsAnotherKeyThatLivesThereIsRefused()
    {
        final byte[] other = collidingKey(KEY);
        final long group = sharedGroup(KEY, other);
        final long word = region.insert(other, BLOCK, 100, group, SLOT);
        flipValueByte(BLOCK, other);
        final RepairReplyMessage reply = repair(group, SLOT, word, KEY);
        assertRefused(RepairRefusal.ANOTHER_KEYS_BLOCK, reply);
        assertEquals(SlotDamage.BAD_CHECKSUM, reply.damage());
        clock.advance(10 * GRACE);
        assertRefused(RepairRefusal.ANOTHER_KEYS_BLOCK, repair(group, SLOT, word, KEY));
        assertEquals(word, region.slot(group, SLOT));
        repair(group, SLOT, word, other);
        clock.advance(GRACE);
        assertEquals(Outcome.REPAIRED, repair(group, SLOT, word, other).outcome(), "its own key repairs it");
    }

    @Test
    void theScanListsExactlyTheDamagedSlotsPageByPage()
    {
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            final byte[] k = key("healthy-" + i);
            region.insert(k, BLOCK + 256L * i, 10, TestRegion.group1(k), i % 14);
        }
        final long out = outsideWord(KEY);
        region.slot(TestRegion.group1(KEY), SLOT, out);
        expected.add(TestRegion.group1(KEY) + "/" + SLOT + " outside_data_area -1 ");
        final byte[] b = key("bad-checksum");
        final long badChecksum = region.insert(b, 200_064, 50, TestRegion.group2(b), 13);
        flipValueByte(200_064, b);
        expected.add(TestRegion.group2(b) + "/13 bad_checksum 12 bad-checksum");
        final byte[] h = key("bad-header");
        region.insert(h, 300_032, 50, TestRegion.group1(h), 12);
        region.segment().set(LittleEndian.U32, GEOMETRY.dataOffset() + 300_032 + KvBlockDescriptor.VALUE_LENGTH_OFFSET,
            1 << 30);
        expected.add(TestRegion.group1(h) + "/12 bad_header 10 bad-header");
        expected.sort(null);

        final List<String> found = new ArrayList<>();
        long from = 0;
        int pages = 0;
        DamageScanOkMessage page;
        do
        {
            page = assertInstanceOf(DamageScanOkMessage.class, request(new DamageScanMessage(++requestId, from, 700)));
            assertEquals(from, page.fromGroup());
            assertTrue(page.nextGroup() > from && page.nextGroup() - from <= 700, "bounded pages");
            for (final DamageScanOkMessage.Entry e : page.entries())
            {
                found.add(e.group() + "/" + e.slot() + " " + SlotDamage.describe(e.damage()) + " " + e.keyLength() +
                    " " + new String(e.key()));
                assertEquals(region.slot(e.group(), e.slot()), e.word());
            }
            from = page.nextGroup();
            pages++;
        }
        while (!page.done());
        found.sort(null);
        assertEquals(expected, found);
        assertEquals((GEOMETRY.groupCount() + 699) / 700, pages);
        assertEquals(pages, counters.get(ServerCounter.DAMAGE_SCANS));
        assertEquals(badChecksum, region.slot(TestRegion.group2(b), 13), "a scan changes nothing");
    }

    @Test
    void aMalformedRepairIsAnsweredAndTheSessionGoesOn()
    {
        final byte[] bytes = ControlCodec.toBytes(new RepairMessage(1, 0, 0, 5, KEY));
        LittleEndian.u16(java.lang.foreign.MemorySegment.ofArray(bytes), RepairMessage.SLOT_OFFSET, 14);
        peer.send(bytes);
        final CodedRefusalMessage error = CodedRefusalMessage.expect(MessageType.ERROR, awaitReply());
        assertEquals(ReasonCode.MALFORMED_MESSAGE, error.reason());
        assertEquals(1, counters.get(ServerCounter.MALFORMED_MESSAGES));
        assertEquals(Outcome.REFUSED, repair(0, 0, 5, KEY).outcome());
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static long outsideWord(final byte[] key)
    {
        return SlotWord.pack(KeyHash.fingerprint(KeyHash.hash(key)), 2, GEOMETRY.dataLength() / SlotWord.UNIT);
    }

    private void flipValueByte(final long block, final byte[] key)
    {
        final long at = GEOMETRY.dataOffset() + block + KvBlockDescriptor.valueOffset(key.length) + 3;
        region.segment().set(LittleEndian.U8, at, (byte)(region.segment().get(LittleEndian.U8, at) ^ 0x5A));
    }

    /** A key with {@code key}'s fingerprint and one of its candidate groups. */
    private static byte[] collidingKey(final byte[] key)
    {
        for (int i = 0; i < 50_000_000; i++)
        {
            final byte[] other = key("other-" + i);
            if (KeyHash.fingerprint(KeyHash.hash(other)) == KeyHash.fingerprint(KeyHash.hash(key)) &&
                sharedGroup(key, other) >= 0)
            {
                return other;
            }
        }
        throw new AssertionError("no colliding key found");
    }

    private static long sharedGroup(final byte[] a, final byte[] b)
    {
        for (final long g : new long[] {TestRegion.group1(a), TestRegion.group2(a)})
        {
            if (g == TestRegion.group1(b) || g == TestRegion.group2(b))
            {
                return g;
            }
        }
        return -1;
    }

    private static void assertRefused(final RepairRefusal why, final RepairReplyMessage reply)
    {
        assertEquals(Outcome.REFUSED, reply.outcome(), reply.text());
        assertEquals(why, reply.refusal(), reply.text());
    }

    private RepairReplyMessage repair(final long group, final int slot, final long word, final byte[] key)
    {
        return assertInstanceOf(RepairReplyMessage.class,
            request(new RepairMessage(++requestId, group, slot, word, key)));
    }

    private ControlMessage request(final ControlMessage message)
    {
        peer.send(message);
        final ControlMessage reply = awaitReply();
        assertEquals(message.requestId(), reply.requestId());
        return reply;
    }

    private ControlMessage awaitReply()
    {
        return AgentDriver.awaitReply(agent, peer);
    }
}
