package io.rdmakv.verbs.abi;

/**
 * Layout of {@code struct ibv_wc} (rdma-core, x86_64): 48 bytes, align 8.
 *
 * <pre>
 *   0 wr_id           u64
 *   8 status          u32 (enum ibv_wc_status)
 *  12 opcode          u32 (enum ibv_wc_opcode)
 *  16 vendor_err      u32
 *  20 byte_len        u32
 *  24 imm_data        be32 (union with invalidated_rkey)
 *  28 qp_num          u32
 *  32 src_qp          u32
 *  36 wc_flags        u32
 *  40 pkey_index      u16
 *  42 slid            u16
 *  44 sl              u8
 *  45 dlid_path_bits  u8, 2 bytes padding
 * </pre>
 */
public final class IbvWc
{
    public static final int WR_ID_OFFSET = 0;
    public static final int STATUS_OFFSET = 8;
    public static final int OPCODE_OFFSET = 12;
    public static final int VENDOR_ERR_OFFSET = 16;
    public static final int BYTE_LEN_OFFSET = 20;
    public static final int IMM_DATA_OFFSET = 24;
    public static final int QP_NUM_OFFSET = 28;
    public static final int SRC_QP_OFFSET = 32;
    public static final int WC_FLAGS_OFFSET = 36;
    public static final int PKEY_INDEX_OFFSET = 40;
    public static final int SLID_OFFSET = 42;
    public static final int SL_OFFSET = 44;
    public static final int DLID_PATH_BITS_OFFSET = 45;
    public static final int SIZE = 48;
    public static final int ALIGNMENT = 8;

    private IbvWc()
    {
    }
}
