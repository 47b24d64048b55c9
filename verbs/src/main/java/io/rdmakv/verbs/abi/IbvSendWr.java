package io.rdmakv.verbs.abi;

/**
 * Layout of {@code struct ibv_send_wr} (rdma-core, x86_64): 128 bytes, align 8.
 *
 * <pre>
 *   0 wr_id            u64
 *   8 next             ptr   (next work request of a chain, or NULL)
 *  16 sg_list          ptr   (struct ibv_sge[num_sge])
 *  24 num_sge          s32
 *  28 opcode           u32   (enum ibv_wr_opcode)
 *  32 send_flags       u32   (enum ibv_send_flags)
 *  36 imm_data         be32  (union with invalidate_rkey u32, what LOCAL_INV invalidates)
 *  40 wr.rdma.remote_addr    u64 | wr.atomic.remote_addr u64
 *  48 wr.rdma.rkey           u32 | wr.atomic.compare_add u64
 *  56                        --- | wr.atomic.swap        u64
 *  64                        --- | wr.atomic.rkey        u32
 *  72 qp_type (xrc remote_srqn), 4 bytes padding
 *  80 bind_mw.mw       ptr   (struct ibv_mw *) | tso.hdr ...
 *  88 bind_mw.rkey     u32   (the window's new rkey)
 *  96 bind_mw.bind_info.mr              ptr  (struct ibv_mr *)
 * 104 bind_mw.bind_info.addr            u64
 * 112 bind_mw.bind_info.length          u64
 * 120 bind_mw.bind_info.mw_access_flags u32
 * </pre>
 *
 * The R_Key moves: offset 48 for RDMA READ/WRITE, offset 64 for atomics.
 * Checked against the installed {@code <infiniband/verbs.h>} by the layout test.
 */
public final class IbvSendWr
{
    public static final int WR_ID_OFFSET = 0;
    public static final int NEXT_OFFSET = 8;
    public static final int SG_LIST_OFFSET = 16;
    public static final int NUM_SGE_OFFSET = 24;
    public static final int OPCODE_OFFSET = 28;
    public static final int SEND_FLAGS_OFFSET = 32;
    public static final int IMM_DATA_OFFSET = 36;
    public static final int RDMA_REMOTE_ADDR_OFFSET = 40;
    public static final int RDMA_RKEY_OFFSET = 48;
    public static final int ATOMIC_REMOTE_ADDR_OFFSET = 40;
    public static final int ATOMIC_COMPARE_ADD_OFFSET = 48;
    public static final int ATOMIC_SWAP_OFFSET = 56;
    public static final int ATOMIC_RKEY_OFFSET = 64;
    public static final int INVALIDATE_RKEY_OFFSET = 36;
    public static final int BIND_MW_MW_OFFSET = 80;
    public static final int BIND_MW_RKEY_OFFSET = 88;
    public static final int BIND_MW_MR_OFFSET = 96;
    public static final int BIND_MW_ADDR_OFFSET = 104;
    public static final int BIND_MW_LENGTH_OFFSET = 112;
    public static final int BIND_MW_ACCESS_OFFSET = 120;
    public static final int SIZE = 128;
    public static final int ALIGNMENT = 8;

    private IbvSendWr()
    {
    }
}
