package io.rdmakv.verbs;

/** Work request opcodes, with the numeric values of {@code enum ibv_wr_opcode}. */
public final class Opcode
{
    public static final int RDMA_WRITE = 0;
    public static final int RDMA_WRITE_WITH_IMM = 1;
    public static final int SEND = 2;
    public static final int SEND_WITH_IMM = 3;
    public static final int RDMA_READ = 4;
    public static final int ATOMIC_CMP_AND_SWP = 5;
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    /** Invalidates the memory window named by {@code invalidate_rkey} ({@link SendWorkRequest#localInvalidate}). */
    public static final int LOCAL_INV = 7;
    /** Binds a type-2 memory window to the posting queue pair ({@link SendWorkRequest#bindMemoryWindow}). */
    public static final int BIND_MW = 8;

    private Opcode()
    {
    }

    public static String name(final int opcode)
    {
        return switch (opcode)
        {
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_WRITE_WITH_IMM -> "RDMA_WRITE_WITH_IMM";
            case SEND -> "SEND";
            case SEND_WITH_IMM -> "SEND_WITH_IMM";
            case RDMA_READ -> "RDMA_READ";
            case ATOMIC_CMP_AND_SWP -> "ATOMIC_CMP_AND_SWP";
            case ATOMIC_FETCH_AND_ADD -> "ATOMIC_FETCH_AND_ADD";
            case LOCAL_INV -> "LOCAL_INV";
            case BIND_MW -> "BIND_MW";
            default -> "UNKNOWN(" + opcode + ")";
        };
    }
}
