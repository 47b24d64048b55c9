package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ibverbs.IbvContext;

/**
 * Where a real device is known to behave differently from what the suite otherwise demands, and why.
 * Each deviation is accepted only for the device that has it, and docs/development.md's "Known rxe deviations"
 * lists them; everything else stays strict.
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

    private KnownDeviations()
    {
    }

    /** True for the {@code ibverbs} provider on the kernel's software RoCE driver ({@code rdma_rxe}). */
    static boolean softRoce(final Context context)
    {
        return context instanceof IbvContext ibv && ibv.isSoftRoce();
    }
}
