package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.rdmakv.verbs.AccessFlags.LOCAL_WRITE;
import static io.rdmakv.verbs.AccessFlags.REMOTE_ATOMIC;
import static io.rdmakv.verbs.AccessFlags.REMOTE_READ;
import static io.rdmakv.verbs.AccessFlags.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the responder refuses, and what that does to the requester: the failing request completes with
 * its error status (signaled or not), the requester's queue pair moves to ERR, everything after it
 * completes with {@code WR_FLUSH_ERR}, and the refused access changes no remote byte. The responder's
 * own state after a remote error is deliberately not checked (devices differ).
 */
final class RemoteAccessErrorsTest
{
    private static final long REGION = 4096;
    private static final long GUARD = 64;
    private static final byte SENTINEL = 0x5a;
    private static final long SENTINEL_WORD = 0x5a5a_5a5a_5a5a_5a5aL;

    /** One way to break the rules of a remote region; each must complete with {@code REM_ACCESS_ERR}. */
    enum Fault
    {
        UNKNOWN_RKEY,
        RKEY_OF_A_CLOSED_REGION,
        READ_CROSSING_THE_END,
        WRITE_CROSSING_THE_START,
        ATOMIC_PAST_THE_END,
        WRITE_WITHOUT_REMOTE_WRITE,
        CAS_WITHOUT_REMOTE_ATOMIC,
        FAA_WITHOUT_REMOTE_ATOMIC,
        READ_WITHOUT_REMOTE_READ;

        /** A CAS or FAA: needs a device with remote atomics. */
        boolean atomic()
        {
            return this == ATOMIC_PAST_THE_END || this == CAS_WITHOUT_REMOTE_ATOMIC || this == FAA_WITHOUT_REMOTE_ATOMIC;
        }
    }

    static Stream<Arguments> providersAndFaults()
    {
        return ConformanceProviders.names().flatMap(p -> Arrays.stream(Fault.values()).map(f -> Arguments.of(p, f)));
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @MethodSource("providersAndFaults")
    @Timeout(
        value = ProviderTest.BACKSTOP_SECONDS, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void refusedRemoteAccessFailsWithRemAccessErrAndChangesNothing(final String provider, final Fault fault)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            if (fault.atomic())
            {
                KnownDeviations.requireRemoteAtomics(fx);
            }
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest wr = fx.sendRequests(1).at(0);
            final MemorySegment remoteMemory = prepare(fault, fx, local, wr);
            wr.wrId(1).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(link.client(), wr);

            final Completion c = fx.awaitOne(fx.client().cq());
            if (KnownDeviations.softIwarp(fx.client().context()) && c.status() != WcStatus.REM_ACCESS_ERR)
            {
                siwRefusal(fault, c, remoteMemory, local);
            }
            c.assertStatus(1, WcStatus.REM_ACCESS_ERR);
            fx.assertState(link.client(), QpState.ERR, "requester after " + fault);
            Memory.assertFilled(remoteMemory, SENTINEL, "remote memory (with guard bytes) after a refused " + fault);
            fx.assertNoCompletion(fx.client().cq(), "one failed request, one completion");
        }
    }

    /**
     * What siw did instead of REM_ACCESS_ERR, checked, then the test aborted with the deviation: a refused WRITE
     * completed SUCCESS and nothing landed ({@link KnownDeviations#SIW_LOCAL_COMPLETION}), a refused READ was
     * flushed ({@link KnownDeviations#SIW_REMOTE_ERROR_FLUSHED}), a READ without REMOTE_READ was served
     * ({@link KnownDeviations#SIW_READ_ACCESS_NOT_CHECKED}).
     */
    private static void siwRefusal(
        final Fault fault, final Completion c, final MemorySegment remoteMemory, final MemoryRegion local)
    {
        final String kernel = "; kernel " + System.getProperty("os.version");
        Memory.assertFilled(remoteMemory, SENTINEL, "remote memory (with guard bytes) after a " + fault + " on siw");
        switch (fault)
        {
            case READ_WITHOUT_REMOTE_READ ->
            {
                c.assertStatus(1, WcStatus.SUCCESS);
                assertEquals(SENTINEL_WORD, Memory.word(local.segment(), 0), "what the READ returned");
                Assumptions.abort(KnownDeviations.SIW_READ_ACCESS_NOT_CHECKED + kernel);
            }
            case UNKNOWN_RKEY, READ_CROSSING_THE_END ->
            {
                c.assertStatus(1, WcStatus.WR_FLUSH_ERR);
                Assumptions.abort(KnownDeviations.SIW_REMOTE_ERROR_FLUSHED + " (" + fault + ")" + kernel);
            }
            case RKEY_OF_A_CLOSED_REGION, WRITE_CROSSING_THE_START, WRITE_WITHOUT_REMOTE_WRITE ->
            {
                c.assertStatus(1, WcStatus.SUCCESS);
                Assumptions.abort(KnownDeviations.SIW_LOCAL_COMPLETION + " (" + fault + ")" + kernel);
            }
            default -> { }
        }
    }

    /**
     * A CAS or FAA whose remote address is not 8-byte aligned is refused, one of two ways: by the post
     * ({@code EINVAL}, nothing executed: Soft-RoCE) or by the responder ({@code REM_INV_REQ_ERR} on real
     * NICs, {@code REM_ACCESS_ERR} accepted too). The remote memory is unchanged either way.
     */
    @ProviderTest
    @Tag(ProviderTest.TOLERANT)
    void misalignedAtomicsAreRefused(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            remote.segment().fill(SENTINEL);
            final SendWorkRequest wr = fx.sendRequests(1).at(0);
            for (final boolean cas : new boolean[] {true, false})
            {
                final VerbsFixture.Link link = fx.connectedPair();
                if (cas)
                {
                    wr.compareAndSwap(
                        local.address(), local.lkey(), remote.address() + 4, remote.rkey(), SENTINEL_WORD, 1);
                }
                else
                {
                    wr.fetchAndAdd(local.address(), local.lkey(), remote.address() + 12, remote.rkey(), 1);
                }
                wr.wrId(cas ? 1 : 2).sendFlags(SendFlags.SIGNALED);
                final int rc = link.client().postSend(wr);
                if (rc == Errno.EINVAL)
                {
                    // Refused by the post itself (Soft-RoCE's ibv_post_send checks the 8-byte alignment):
                    // then nothing may have run. An aligned READ posted next is the next completion, the
                    // queue pair is still usable and no remote byte changed.
                    VerbsFixture.postSend(link.client(), fx.sendRequests(1).at(0)
                        .rdmaRead(local.address(), 8, local.lkey(), remote.address(), remote.rkey())
                        .wrId(3).sendFlags(SendFlags.SIGNALED));
                    fx.awaitOne(fx.client().cq()).assertSuccess(3, WcOpcode.RDMA_READ, link.client().qpNum());
                    fx.assertState(link.client(), QpState.RTS, "a refused post changes nothing");
                    Memory.assertFilled(remote.segment(), SENTINEL, "remote memory after a refused misaligned atomic");
                    continue;
                }
                assertEquals(0, rc, () -> "postSend of a misaligned atomic returned " + Errno.name(rc) +
                    " (0, or EINVAL with nothing executed, is conformant)");

                final Completion c = fx.awaitOne(fx.client().cq());
                assertEquals(cas ? 1 : 2, c.wrId(), () -> "wrId of " + c);
                assertTrue(Set.of(WcStatus.REM_INV_REQ_ERR, WcStatus.REM_ACCESS_ERR).contains(c.status()),
                    () -> "misaligned " + (cas ? "CAS" : "FAA") + " must be refused: " + c);
                fx.assertState(link.client(), QpState.ERR, "the requester");
                Memory.assertFilled(remote.segment(), SENTINEL, "remote memory after a misaligned atomic");
            }
        }
    }

    @ProviderTest
    void requestsAfterAFailureAreFlushedWithoutRunning(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            Memory.word(local.segment(), 8, 99L);
            final SendWorkRequests chain = fx.sendRequests(4);
            chain.at(0).rdmaRead(local.address(), 8, local.lkey(), remote.address(), unknownRkey(remote));
            chain.at(1).rdmaRead(local.address(), 8, local.lkey(), remote.address(), remote.rkey());
            chain.at(2).rdmaWrite(local.address() + 8, 8, local.lkey(), remote.address() + 8, remote.rkey());
            chain.at(3).fetchAndAdd(local.address() + 16, local.lkey(), remote.address() + 16, remote.rkey(), 1);
            for (int i = 0; i < 4; i++)
            {
                chain.at(i).wrId(i + 1).sendFlags(SendFlags.SIGNALED).next(i < 3 ? chain.at(i + 1) : null);
            }
            VerbsFixture.postSend(link.client(), chain.at(0));

            final List<Completion> done = fx.await(fx.client().cq(), 4);
            done.get(0).assertStatus(1, WcStatus.REM_ACCESS_ERR);
            for (int i = 1; i < 4; i++)
            {
                done.get(i).assertStatus(i + 1, WcStatus.WR_FLUSH_ERR);
            }
            fx.assertState(link.client(), QpState.ERR, "the requester");

            // Posting to a queue pair in ERR is accepted (postSend returns 0) and flushed.
            chain.at(1).wrId(5).next(null);
            VerbsFixture.postSend(link.client(), chain.at(1));
            fx.awaitOne(fx.client().cq()).assertStatus(5, WcStatus.WR_FLUSH_ERR);
            assertEquals(0L, Memory.word(remote.segment(), 8), "the flushed WRITE did not run");
            assertEquals(0L, Memory.word(remote.segment(), 16), "the flushed FAA did not run");
        }
    }

    @ProviderTest
    void unsignaledRequestThatFailsStillCompletes(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest wr = fx.sendRequests(1).at(0)
                .rdmaRead(local.address(), 8, local.lkey(), remote.address(), unknownRkey(remote))
                .wrId(9).sendFlags(0);
            VerbsFixture.postSend(link.client(), wr);

            final Completion failed = fx.awaitOne(fx.client().cq());
            if (KnownDeviations.softIwarp(fx.client().context()) && failed.status() == WcStatus.WR_FLUSH_ERR)
            {
                failed.assertStatus(9, WcStatus.WR_FLUSH_ERR);
                Assumptions.abort(KnownDeviations.SIW_REMOTE_ERROR_FLUSHED + " (an unsignaled READ with an unknown " +
                    "rkey); kernel " + System.getProperty("os.version"));
            }
            failed.assertStatus(9, WcStatus.REM_ACCESS_ERR);
            fx.assertState(link.client(), QpState.ERR, "the requester");
        }
    }

    /**
     * Registers the region {@code fault} targets, filled with {@link #SENTINEL} and with {@link #GUARD}
     * sentinel bytes on each side inside the same allocation, and points {@code wr} at it the wrong way.
     *
     * @return the region's memory with its guard bytes
     */
    private static MemorySegment prepare(
        final Fault fault, final VerbsFixture fx, final MemoryRegion local, final SendWorkRequest wr)
    {
        final int access = switch (fault)
        {
            case WRITE_WITHOUT_REMOTE_WRITE -> LOCAL_WRITE | REMOTE_READ | REMOTE_ATOMIC;
            case CAS_WITHOUT_REMOTE_ATOMIC, FAA_WITHOUT_REMOTE_ATOMIC -> LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;
            case READ_WITHOUT_REMOTE_READ -> LOCAL_WRITE | REMOTE_WRITE | REMOTE_ATOMIC;
            default -> VerbsFixture.REMOTE_ACCESS;
        };
        final MemorySegment guarded = fx.allocate(GUARD + REGION + GUARD).fill(SENTINEL);
        final MemoryRegion target = fx.register(fx.server().pd(), guarded.asSlice(GUARD, REGION), access);
        final long base = target.address();
        final int rkey = target.rkey();
        final long to = local.address();
        final int lkey = local.lkey();
        switch (fault)
        {
            case UNKNOWN_RKEY -> wr.rdmaRead(to, 8, lkey, base, unknownRkey(target));
            case RKEY_OF_A_CLOSED_REGION ->
            {
                target.close();
                wr.rdmaWrite(to, 8, lkey, base, rkey);
            }
            case READ_CROSSING_THE_END -> wr.rdmaRead(to, 16, lkey, base + REGION - 8, rkey);
            case WRITE_CROSSING_THE_START -> wr.rdmaWrite(to, 16, lkey, base - 8, rkey);
            case ATOMIC_PAST_THE_END -> wr.fetchAndAdd(to, lkey, base + REGION, rkey, 1);
            case WRITE_WITHOUT_REMOTE_WRITE -> wr.rdmaWrite(to, 8, lkey, base, rkey);
            case CAS_WITHOUT_REMOTE_ATOMIC -> wr.compareAndSwap(to, lkey, base, rkey, SENTINEL_WORD, 1);
            case FAA_WITHOUT_REMOTE_ATOMIC -> wr.fetchAndAdd(to, lkey, base, rkey, 1);
            case READ_WITHOUT_REMOTE_READ -> wr.rdmaRead(to, 8, lkey, base, rkey);
        }
        return guarded;
    }

    /** An rkey that names no region: the region's own with bits 8..23 flipped. */
    static int unknownRkey(final MemoryRegion region)
    {
        return region.rkey() ^ 0x00ff_ff00;
    }
}
