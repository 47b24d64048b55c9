package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each operation once, successfully: what lands where, and the completion it produces (wrId, status,
 * opcode, byte length, queue pair number). The client's queue pair is the requester throughout.
 */
final class OperationsTest
{
    private static final byte UNTOUCHED = 0x55;

    @ProviderTest
    void rdmaReadCopiesRemoteBytesIntoLocalMemory(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 4096, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 4096, AccessFlags.LOCAL_WRITE);
            Memory.pattern(remote.segment(), 1);
            local.segment().fill(UNTOUCHED);

            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .rdmaRead(local.address() + 128, 300, local.lkey(), remote.address() + 1000, remote.rkey())
                .wrId(11).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);
            fx.awaitOne(fx.client().cq()).assertSuccess(11, WcOpcode.RDMA_READ, link.client().qpNum());

            Memory.assertSameBytes(remote.segment().asSlice(1000, 300), local.segment().asSlice(128, 300), "read data");
            Memory.assertFilled(local.segment().asSlice(0, 128), UNTOUCHED, "local bytes before the read target");
            Memory.assertFilled(local.segment().asSlice(428), UNTOUCHED, "local bytes after the read target");
        }
    }

    @ProviderTest
    void rdmaWritePlacesLocalBytesInRemoteMemory(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 4096, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 4096, AccessFlags.LOCAL_WRITE);
            remote.segment().fill(UNTOUCHED);
            Memory.pattern(local.segment(), 2);

            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .rdmaWrite(local.address() + 64, 300, local.lkey(), remote.address() + 1000, remote.rkey())
                .wrId(12).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);
            fx.awaitOne(fx.client().cq()).assertSuccess(12, WcOpcode.RDMA_WRITE, link.client().qpNum());

            Memory.assertSameBytes(
                local.segment().asSlice(64, 300), remote.segment().asSlice(1000, 300), "written data");
            Memory.assertFilled(remote.segment().asSlice(0, 1000), UNTOUCHED, "remote bytes before the write target");
            Memory.assertFilled(remote.segment().asSlice(1300), UNTOUCHED, "remote bytes after the write target");
        }
    }

    @ProviderTest
    void inlineWriteTakesItsBytesAtPostTimeFromUnregisteredMemory(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 256, VerbsFixture.REMOTE_ACCESS);
            final MemorySegment unregistered = Memory.pattern(fx.allocate(48), 3);
            final MemorySegment original = Memory.pattern(fx.allocate(48), 3);

            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .rdmaWrite(unregistered.address(), 48, 0, remote.address() + 64, remote.rkey())
                .wrId(13).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE);
            VerbsFixture.postSend(link.client(), wr);
            unregistered.fill((byte)0x77);
            fx.awaitOne(fx.client().cq()).assertSuccess(13, WcOpcode.RDMA_WRITE, link.client().qpNum());

            Memory.assertSameBytes(original, remote.segment().asSlice(64, 48), "remote copy of the inline data");
        }
    }

    @ProviderTest
    void sendLandsInThePostedReceiveWithItsLength(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion inbox = fx.register(fx.server(), 256, AccessFlags.LOCAL_WRITE);
            final MemoryRegion outbox = fx.register(fx.client(), 256, AccessFlags.LOCAL_WRITE);
            inbox.segment().fill(UNTOUCHED);
            Memory.pattern(outbox.segment(), 4);

            VerbsFixture.postReceive(link.server(),
                fx.receiveRequests(1).at(0).wrId(77).buffer(inbox.address(), 256, inbox.lkey()));
            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .send(outbox.address(), 100, outbox.lkey()).wrId(5).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);

            fx.awaitOne(fx.client().cq()).assertSuccess(5, WcOpcode.SEND, link.client().qpNum());
            final Completion received = fx.awaitOne(fx.server().cq())
                .assertSuccess(77, WcOpcode.RECV, link.server().qpNum());
            assertEquals(100, received.byteLen(), () -> "byteLen of " + received);
            Memory.assertSameBytes(outbox.segment().asSlice(0, 100), inbox.segment().asSlice(0, 100), "received data");
            Memory.assertFilled(inbox.segment().asSlice(100), UNTOUCHED, "receive buffer past the message");
        }
    }

    @ProviderTest
    void receivesPostedAsAChainAreConsumedInOrder(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion inbox = fx.register(fx.server(), 3 * 64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion outbox = fx.register(fx.client(), 3 * 64, AccessFlags.LOCAL_WRITE);
            Memory.pattern(outbox.segment(), 5);

            final ReceiveWorkRequests receives = fx.receiveRequests(3);
            for (int i = 0; i < 3; i++)
            {
                receives.at(i).wrId(100 + i).buffer(inbox.address() + i * 64L, 64, inbox.lkey())
                    .next(i < 2 ? receives.at(i + 1) : null);
            }
            VerbsFixture.postReceive(link.server(), receives.at(0));

            final SendWorkRequest wr = fx.sendRequests(1).at(0);
            for (int i = 0; i < 3; i++)
            {
                wr.send(outbox.address() + i * 64L, 10 * (i + 1), outbox.lkey()).wrId(i).sendFlags(SendFlags.SIGNALED);
                VerbsFixture.postSend(link.client(), wr);
            }
            final List<Completion> sent = fx.await(fx.client().cq(), 3);
            final List<Completion> received = fx.await(fx.server().cq(), 3);
            for (int i = 0; i < 3; i++)
            {
                sent.get(i).assertSuccess(i, WcOpcode.SEND, link.client().qpNum());
                final Completion r = received.get(i).assertSuccess(100 + i, WcOpcode.RECV, link.server().qpNum());
                assertEquals(10 * (i + 1), r.byteLen(), () -> "byteLen of " + r);
                Memory.assertSameBytes(outbox.segment().asSlice(i * 64L, 10L * (i + 1)),
                    inbox.segment().asSlice(i * 64L, 10L * (i + 1)), "message " + i);
            }
        }
    }

    @ProviderTest
    void compareAndSwapSwapsWhenEqualAndReturnsTheOriginal(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            Memory.word(remote.segment(), 8, 42L);
            Memory.word(local.segment(), 16, -1L);

            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .compareAndSwap(local.address() + 16, local.lkey(), remote.address() + 8, remote.rkey(),
                    42L, 0x1122_3344_5566_7788L)
                .wrId(21).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);
            fx.awaitOne(fx.client().cq()).assertSuccess(21, WcOpcode.COMP_SWAP, link.client().qpNum());

            assertEquals(42L, Memory.word(local.segment(), 16), "original value returned by CAS");
            assertEquals(0x1122_3344_5566_7788L, Memory.word(remote.segment(), 8), "swapped remote word");
            assertEquals(0L, Memory.word(remote.segment(), 0), "the word before is untouched");
            assertEquals(0L, Memory.word(remote.segment(), 16), "the word after is untouched");
        }
    }

    @ProviderTest
    void compareAndSwapLeavesAnUnequalWordAndStillReturnsTheOriginal(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            Memory.word(remote.segment(), 8, 42L);
            Memory.word(local.segment(), 0, -1L);

            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .compareAndSwap(local.address(), local.lkey(), remote.address() + 8, remote.rkey(), 41L, 99L)
                .wrId(22).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);
            // A failed compare is not an error: the completion is a success and carries the original.
            fx.awaitOne(fx.client().cq()).assertSuccess(22, WcOpcode.COMP_SWAP, link.client().qpNum());

            assertEquals(42L, Memory.word(local.segment(), 0), "original value returned by CAS");
            assertEquals(42L, Memory.word(remote.segment(), 8), "remote word after a failed compare");
        }
    }

    @ProviderTest
    void fetchAndAddAddsSixtyFourBitsAndReturnsTheOriginal(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            Memory.word(remote.segment(), 0, 1000L);
            Memory.word(remote.segment(), 8, Long.MAX_VALUE);

            final SendWorkRequest wr = fx.sendRequests(1).at(0);
            wr.fetchAndAdd(local.address(), local.lkey(), remote.address(), remote.rkey(), 5L)
                .wrId(31).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);
            fx.awaitOne(fx.client().cq()).assertSuccess(31, WcOpcode.FETCH_ADD, link.client().qpNum());
            assertEquals(1000L, Memory.word(local.segment(), 0), "original value returned by FAA");
            assertEquals(1005L, Memory.word(remote.segment(), 0), "remote word after FAA");

            wr.fetchAndAdd(local.address() + 8, local.lkey(), remote.address() + 8, remote.rkey(), 1L).wrId(32);
            VerbsFixture.postSend(link.client(), wr);
            fx.awaitOne(fx.client().cq()).assertSuccess(32, WcOpcode.FETCH_ADD, link.client().qpNum());
            assertEquals(Long.MAX_VALUE, Memory.word(local.segment(), 8), "original value returned by FAA");
            assertEquals(Long.MIN_VALUE, Memory.word(remote.segment(), 8), "FAA wraps around in 64 bits");
        }
    }
}
