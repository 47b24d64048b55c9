package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.WcOpcode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Signaled and unsignaled requests, chains posted with one call, the fence flag, reuse of a work request
 * right after posting it, and the RC ordering the store relies on (a READ after a WRITE on the same queue
 * pair sees the WRITE).
 */
final class SignalingAndOrderingTest
{
    @ProviderTest
    void unsignaledWritesCompleteSilentlyAndASignaledReadAfterThemSeesThemAll(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final int writes = 100;
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 8 * writes, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 16 * writes, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest wr = fx.sendRequests(1).at(0);
            for (int i = 0; i < writes; i++)
            {
                Memory.word(local.segment(), 8L * i, 1_000_000L + i);
                wr.rdmaWrite(local.address() + 8L * i, 8, local.lkey(), remote.address() + 8L * i, remote.rkey())
                    .wrId(i).sendFlags(0);
                VerbsFixture.postSend(link.client(), wr);
            }
            wr.rdmaRead(local.address() + 8L * writes, 8 * writes, local.lkey(), remote.address(), remote.rkey())
                .wrId(writes).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);

            // Had any unsignaled WRITE produced a completion, it would come before the READ's.
            fx.awaitOne(fx.client().cq()).assertSuccess(writes, WcOpcode.RDMA_READ, link.client().qpNum());
            fx.assertNoCompletion(fx.client().cq(), "successful unsignaled requests complete silently");
            for (int i = 0; i < writes; i++)
            {
                assertEquals(1_000_000L + i, Memory.word(local.segment(), 8L * (writes + i)), "READ saw WRITE " + i);
                assertEquals(1_000_000L + i, Memory.word(remote.segment(), 8L * i), "remote word " + i);
            }
        }
    }

    @ProviderTest
    void readPostedRightAfterAWriteToTheSameAddressSeesIt(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequests wrs = fx.sendRequests(2);
            for (int round = 0; round < 50; round++)
            {
                final long value = 0x5eed_0000_0000L + round;
                Memory.word(local.segment(), 0, value);
                wrs.at(0).rdmaWrite(local.address(), 8, local.lkey(), remote.address() + 24, remote.rkey())
                    .wrId(2L * round).sendFlags(SendFlags.SIGNALED);
                wrs.at(1).rdmaRead(local.address() + 8, 8, local.lkey(), remote.address() + 24, remote.rkey())
                    .wrId(2L * round + 1).sendFlags(SendFlags.SIGNALED);
                VerbsFixture.postSend(link.client(), wrs.at(0));
                VerbsFixture.postSend(link.client(), wrs.at(1));
                final List<Completion> done = fx.await(fx.client().cq(), 2);
                done.get(0).assertSuccess(2L * round, WcOpcode.RDMA_WRITE, link.client().qpNum());
                done.get(1).assertSuccess(2L * round + 1, WcOpcode.RDMA_READ, link.client().qpNum());
                assertEquals(value, Memory.word(local.segment(), 8), "READ after WRITE, round " + round);
            }
        }
    }

    @ProviderTest
    void chainOfSixteenPostedWithOneCallExecutesAndCompletesInOrder(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 512, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 2048, AccessFlags.LOCAL_WRITE);
            final long counter = 256;
            final long casWord = 264;
            final SendWorkRequests chain = fx.sendRequests(16);
            final int[] opcodes = new int[16];
            for (int i = 0; i < 16; i++)
            {
                final int k = i / 4;
                final SendWorkRequest wr = chain.at(i);
                switch (i % 4)
                {
                    // WRITE (k+1)*111 to slot k, READ slot k back, FAA the counter, CAS the word from k to k+1
                    case 0 ->
                    {
                        Memory.word(local.segment(), 64 + 8L * k, (k + 1) * 111L);
                        wr.rdmaWrite(local.address() + 64 + 8L * k, 8, local.lkey(), remote.address() + 8L * k,
                            remote.rkey());
                    }
                    case 1 -> wr.rdmaRead(
                        local.address() + 512 + 8L * k, 8, local.lkey(), remote.address() + 8L * k, remote.rkey());
                    case 2 -> wr.fetchAndAdd(
                        local.address() + 768 + 8L * k, local.lkey(), remote.address() + counter, remote.rkey(), 1L);
                    default -> wr.compareAndSwap(local.address() + 1024 + 8L * k, local.lkey(),
                        remote.address() + casWord, remote.rkey(), k, k + 1);
                }
                opcodes[i] = wr.opcode();
                wr.wrId(500 + i).sendFlags(SendFlags.SIGNALED).next(i < 15 ? chain.at(i + 1) : null);
            }
            VerbsFixture.postSend(link.client(), chain.at(0));

            final List<Completion> done = fx.await(fx.client().cq(), 16);
            for (int i = 0; i < 16; i++)
            {
                done.get(i).assertSuccess(500 + i, WcOpcode.ofSendOpcode(opcodes[i]), link.client().qpNum());
            }
            for (int k = 0; k < 4; k++)
            {
                assertEquals(
                    (k + 1) * 111L, Memory.word(local.segment(), 512 + 8L * k), "READ " + k + " saw its WRITE");
                assertEquals(k, Memory.word(local.segment(), 768 + 8L * k), "FAA " + k + " original");
                assertEquals(k, Memory.word(local.segment(), 1024 + 8L * k), "CAS " + k + " original (in order)");
            }
            assertEquals(4L, Memory.word(remote.segment(), counter), "counter after four FAA");
            assertEquals(4L, Memory.word(remote.segment(), casWord), "word after four CAS");
            assertEquals(Opcode.ATOMIC_CMP_AND_SWP, opcodes[15]);
        }
    }

    @ProviderTest
    void fencedWriteAfterAReadIsAcceptedAndOrdered(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            Memory.word(remote.segment(), 0, 7L);
            Memory.word(local.segment(), 8, 8L);
            final SendWorkRequests chain = fx.sendRequests(2);
            chain.at(0).rdmaRead(local.address(), 8, local.lkey(), remote.address(), remote.rkey())
                .wrId(1).sendFlags(SendFlags.SIGNALED).next(chain.at(1));
            chain.at(1).rdmaWrite(local.address() + 8, 8, local.lkey(), remote.address(), remote.rkey())
                .wrId(2).sendFlags(SendFlags.SIGNALED | SendFlags.FENCE).next(null);
            VerbsFixture.postSend(link.client(), chain.at(0));

            final List<Completion> done = fx.await(fx.client().cq(), 2);
            done.get(0).assertSuccess(1, WcOpcode.RDMA_READ, link.client().qpNum());
            done.get(1).assertSuccess(2, WcOpcode.RDMA_WRITE, link.client().qpNum());
            assertEquals(7L, Memory.word(local.segment(), 0), "the READ ran before the fenced WRITE");
            assertEquals(8L, Memory.word(remote.segment(), 0), "the fenced WRITE landed");
        }
    }

    @ProviderTest
    void workRequestMayBeRepatchedAndRepostedRightAfterPostSendReturns(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            Memory.word(local.segment(), 0, 0xaaaaL);
            Memory.word(local.segment(), 8, 0xbbbbL);
            final SendWorkRequest wr = fx.sendRequests(1).at(0);
            wr.rdmaWrite(local.address(), 8, local.lkey(), remote.address(), remote.rkey())
                .wrId(1).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);
            wr.rdmaWrite(local.address() + 8, 8, local.lkey(), remote.address() + 8, remote.rkey()).wrId(2);
            VerbsFixture.postSend(link.client(), wr);

            final List<Completion> done = fx.await(fx.client().cq(), 2);
            done.get(0).assertSuccess(1, WcOpcode.RDMA_WRITE, link.client().qpNum());
            done.get(1).assertSuccess(2, WcOpcode.RDMA_WRITE, link.client().qpNum());
            assertEquals(0xaaaaL, Memory.word(remote.segment(), 0), "first post kept its own fields");
            assertEquals(0xbbbbL, Memory.word(remote.segment(), 8), "second post");
        }
    }
}
