package io.rdmakv.verbs.abi;

/**
 * Layout of {@code struct ibv_sge} (rdma-core, x86_64): 16 bytes, align 8.
 *
 * <pre>
 *   0 addr    u64
 *   8 length  u32
 *  12 lkey    u32
 * </pre>
 */
public final class IbvSge
{
    public static final int ADDR_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int LKEY_OFFSET = 12;
    public static final int SIZE = 16;
    public static final int ALIGNMENT = 8;

    private IbvSge()
    {
    }
}
