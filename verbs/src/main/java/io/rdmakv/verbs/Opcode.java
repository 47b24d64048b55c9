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
            default -> "UNKNOWN(" + opcode + ")";
        };
    }
}
