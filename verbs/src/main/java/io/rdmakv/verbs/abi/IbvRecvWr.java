package io.rdmakv.verbs.abi;

/**
 * Layout of {@code struct ibv_recv_wr} (rdma-core, x86_64): 32 bytes, align 8.
 *
 * <pre>
 *   0 wr_id    u64
 *   8 next     ptr
 *  16 sg_list  ptr
 *  24 num_sge  s32, 4 bytes padding
 * </pre>
 */
public final class IbvRecvWr
{
    public static final int WR_ID_OFFSET = 0;
    public static final int NEXT_OFFSET = 8;
    public static final int SG_LIST_OFFSET = 16;
    public static final int NUM_SGE_OFFSET = 24;
    public static final int SIZE = 32;
    public static final int ALIGNMENT = 8;

    private IbvRecvWr()
    {
    }
}
