package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.ibverbs.IbvContext;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;
import org.junit.jupiter.api.Assumptions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a real device is known to behave differently from what the suite otherwise demands, and why.
 * Each deviation is accepted only for the device that has it, and docs/development.md's "Known rxe deviations"
 * and "Known siw deviations" list them; everything else stays strict. A test a deviation makes impossible
 * reports itself aborted with the reason, once the device showed it (what it reports and what it did).
 */
final class KnownDeviations
{
    /**
     * Why a RECV posted to a queue pair already in ERR is not flushed on Soft-RoCE: the user-space rxe
     * provider (rdma-core's {@code providers/rxe}) posts a RECV by writing it into the receive ring it
     * shares with the kernel, without a system call, so the kernel does not learn of it; it flushes the
     * ring only when its responder runs again in ERR (another {@code ibv_modify_qp} to ERR does that,
     * a packet from the peer or a post on the send queue does not). Seen with Debian 12's kernel 6.1 and
     * rdma-core 44.
     */
    static final String RXE_RECV_IN_ERR_NOT_FLUSHED = "Soft-RoCE (rdma_rxe, rdma-core's user-space rxe " +
        "provider) does not flush a RECV posted after the queue pair entered ERR: ibv_post_recv only writes it " +
        "into the receive ring it shares with the kernel, and the kernel flushes that ring only when something " +
        "makes its responder run again (here: a second modifyToError, which did flush it)";

    /**
     * Why a WRITE through a memory window past the window's end (or before its start) succeeds on
     * Soft-RoCE: rxe's responder ({@code check_rkey} in {@code rxe_resp.c}) finds the window by its rkey,
     * checks the queue pair, tag, state and access ({@code rxe_lookup_mw}), then checks the address range
     * against the window's memory region ({@code mr_check_range(mw->mr, ...)}) instead of the window's own
     * {@code [addr, addr + length)}. A window there confines the access to one queue pair and to the
     * region, not to its range. Seen with Debian 12's kernel 6.1; the code is the same in mainline.
     */
    static final String RXE_WINDOW_RANGE_NOT_CHECKED = "Soft-RoCE (rdma_rxe) checks an access through a memory " +
        "window against the bounds of the window's memory region, not the window's own range (rxe_resp.c " +
        "check_rkey: mr_check_range(mw->mr, ...)): the write outside the window but inside the region succeeded " +
        "and landed, a write past the region's end through the window was refused";

    /**
     * Why the tests that issue a CAS or FAA do not run on Soft-iWARP: iWARP's RDMAP (RFC 5040) has no atomic
     * operations, and siw reports {@code atomic_cap} {@code IBV_ATOMIC_NONE}; its {@code ibv_post_send} refuses
     * the opcode. The store uses node-assisted writes there.
     */
    static final String SIW_NO_ATOMICS = "Soft-iWARP (siw) has no remote atomics (iWARP's RDMAP has no CAS or FAA): " +
        "the device reports atomic_cap NONE";

    /** Why the memory-window tests do not run on Soft-iWARP: siw reports {@code max_mw} 0 and has no alloc_mw. */
    static final String SIW_NO_MEMORY_WINDOWS = "Soft-iWARP (siw) has no memory windows (max_mw 0)";

    /**
     * Why a queue pair's state cannot be checked on Soft-iWARP: siw's {@code query_qp} ({@code siw_query_qp} in
     * {@code siw_verbs.c}, kernel 6.1) fills in capabilities, path MTU and access flags but never
     * {@code qp_state}, so {@code ibv_query_qp} reports the zeroed field, RESET, in every state (seen: RESET for a
     * queue pair that had just carried traffic). siw also has no INIT of its own (RESET and INIT are both its
     * IDLE), and over iWARP the connection manager, not the application, moves the queue pair to RTS.
     */
    static final String SIW_QUERY_QP_NO_STATE = "Soft-iWARP (siw) does not report a queue pair's state: " +
        "ibv_query_qp says RESET in every state (siw_query_qp sets no qp_state)";

    /**
     * iWARP (RFC 5040) completes a SEND or RDMA WRITE at the requester once it is handed to the transport, not once
     * the peer placed it: a refusal at the responder comes back later as a TERMINATE that moves the queue pair to
     * ERR, while the request itself completed successfully.
     */
    static final String SIW_LOCAL_COMPLETION = "Soft-iWARP (siw), like all iWARP, completes a SEND or RDMA WRITE at " +
        "the requester once it is sent, not once the responder took it: the request the responder refused completed " +
        "SUCCESS (and nothing landed); the refusal reaches the requester as a TERMINATE";

    /** iWARP has no receiver-not-ready retry: a SEND that finds no RECV posted ends the connection. */
    static final String SIW_NO_RNR = "Soft-iWARP (siw), like all iWARP, has no RNR retry: a SEND that finds no RECV " +
        "posted terminates the connection (siw_qp_rx.c: DDP_ECODE_UT_INVALID_MSN_NOBUF) instead of waiting, and the " +
        "SEND itself completed SUCCESS at the requester";

    /** siw completes a READ the responder refused with WR_FLUSH_ERR: the TERMINATE's move to ERR flushes it. */
    static final String SIW_REMOTE_ERROR_FLUSHED = "Soft-iWARP (siw) completes an RDMA READ the responder refused " +
        "with WR_FLUSH_ERR, not REM_ACCESS_ERR: the responder's TERMINATE moves the requester to ERR, which flushes " +
        "the READ (nothing was read)";

    /**
     * siw serves an RDMA READ from a region registered without REMOTE_READ: {@code siw_qp_sq_proc_tx}
     * ({@code siw_qp_tx.c}) checks the memory of a READ RESPONSE with {@code siw_check_sgl_tx(qp->pd, wqe, 0)}, no
     * access rights ("not defined in RDMA core", says its comment). A siw bug: RFC 5040 has the responder check the
     * STag's remote-read right. Kernel 6.1.
     */
    static final String SIW_READ_ACCESS_NOT_CHECKED = "Soft-iWARP (siw) serves an RDMA READ of a region registered " +
        "without REMOTE_READ (siw_qp_tx.c checks a READ RESPONSE's source with no access rights: " +
        "siw_check_sgl_tx(qp->pd, wqe, 0)): the READ completed SUCCESS with the region's bytes";

    /** As {@link #RXE_RECV_IN_ERR_NOT_FLUSHED}: rdma-core's siw provider posts a RECV into a ring shared with the kernel. */
    static final String SIW_RECV_IN_ERR_NOT_FLUSHED = "Soft-iWARP (siw, rdma-core's user-space siw provider) does " +
        "not flush a RECV posted after the queue pair entered ERR: ibv_post_recv writes it into the receive queue it " +
        "shares with the kernel, which flushes only when the queue pair is moved to ERR again (here: a second " +
        "modifyToError, which did flush it)";

    /**
     * siw never completes a work request posted after the queue pair entered ERR: rdma-core's siw provider writes
     * it into the queue it shares with the kernel, and the kernel flushes its queues only on the transition to ERR
     * ({@code siw_verbs.c}: a user queue pair's send doorbell in ERR calls {@code siw_sq_flush_wr} with no work
     * request, and there is no kernel post_recv for a user queue at all). Unlike rxe, a second move to ERR does
     * not flush it either. Kernel 6.1.
     */
    static final String SIW_POSTED_IN_ERR_NOT_COMPLETED = "Soft-iWARP (siw) never completes a work request " +
        "posted after the queue pair entered ERR: rdma-core's siw provider writes it into the queue it shares with " +
        "the kernel, which flushes only on the transition to ERR (the send doorbell in ERR flushes nothing, a RECV " +
        "has no system call at all), and a second modifyToError does not flush it either";

    /** What the device did with a CAS, by device name: the probe of {@link #requireRemoteAtomics} runs once. */
    private static final java.util.Map<String, String> ATOMIC_REFUSALS = new java.util.concurrent.ConcurrentHashMap<>();

    private KnownDeviations()
    {
    }

    /** True for the {@code ibverbs} provider on the kernel's software iWARP driver ({@code siw}). */
    static boolean softIwarp(final Context context)
    {
        return context instanceof IbvContext ibv && ibv.isSoftIwarp();
    }

    /**
     * Returns when the device under test has remote atomics. On siw, which has none ({@link #SIW_NO_ATOMICS}),
     * first checks that the device refuses a CAS (the post fails, or the request completes with an error, and the
     * word is unchanged), then aborts the calling test with that; on any other device without atomics, fails.
     */
    static void requireRemoteAtomics(final VerbsFixture fx)
    {
        final Context context = fx.client().context();
        final DeviceAttributes attributes = context.attributes();
        if (!"NONE".equals(attributes.atomicCapability()))
        {
            return;
        }
        assertTrue(softIwarp(context), () -> "device " + context.deviceName() + " reports no remote atomics " +
            "(atomic_cap NONE): the suite needs them, and only siw is known to lack them: " + attributes);
        String refusal = ATOMIC_REFUSALS.get(context.deviceName());
        if (refusal == null)
        {
            refusal = casRefusal(fx);
            ATOMIC_REFUSALS.put(context.deviceName(), refusal);
        }
        Assumptions.abort(SIW_NO_ATOMICS + ", and " + refusal + "; kernel " + System.getProperty("os.version"));
    }

    /** Posts a CAS that would succeed on a device with atomics; what the device did instead. */
    private static String casRefusal(final VerbsFixture fx)
    {
        final VerbsFixture.Link link = fx.connectedPair();
        final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
        final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
        Memory.word(remote.segment(), 0, 41L);
        final SendWorkRequest wr = fx.sendRequests(1).at(0)
            .compareAndSwap(local.address(), local.lkey(), remote.address(), remote.rkey(), 41L, 42L)
            .wrId(1).sendFlags(SendFlags.SIGNALED);
        final int rc = link.client().postSend(wr);
        final String what;
        if (rc != 0)
        {
            what = "ibv_post_send of a CAS returned " + Errno.name(rc);
        }
        else
        {
            final Completion c = fx.awaitOneWithin(fx.client().cq(), VerbsFixture.WAIT_NANOS);
            assertNotNull(c, "a CAS posted to a device without atomics neither failed nor completed");
            assertNotEquals(WcStatus.SUCCESS, c.status(), "the device reports atomic_cap NONE but ran a CAS: " + c);
            what = "a CAS completed with " + c.status();
        }
        assertEquals(41L, Memory.word(remote.segment(), 0), "the word a refused CAS named");
        return what;
    }

    /**
     * Returns when windows can be allocated, or where the tests themselves demand them (every device but siw);
     * on siw, where {@code ibv_alloc_mw} fails with {@code EOPNOTSUPP} ({@link #SIW_NO_MEMORY_WINDOWS}), aborts
     * the calling test with that.
     */
    static void requireMemoryWindows(final VerbsFixture fx)
    {
        if (!softIwarp(fx.server().context()))
        {
            return;
        }
        final MemoryWindow mw;
        try
        {
            mw = fx.server().pd().allocMemoryWindow();
        }
        catch (final VerbsException e)
        {
            assertEquals(Errno.EOPNOTSUPP, e.errno(), () -> "siw refused a memory window otherwise: " + e.getMessage());
            Assumptions.abort(SIW_NO_MEMORY_WINDOWS + ": " + e.getMessage() + "; kernel " +
                System.getProperty("os.version"));
            return;
        }
        mw.close();
    }

    /** True for the {@code ibverbs} provider on the kernel's software RoCE driver ({@code rdma_rxe}). */
    static boolean softRoce(final Context context)
    {
        return context instanceof IbvContext ibv && ibv.isSoftRoce();
    }
}
