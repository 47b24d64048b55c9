package io.rdmakv.verbs;

/** Completion opcodes, with the numeric values of {@code enum ibv_wc_opcode}. */
public final class WcOpcode
{
    public static final int SEND = 0;
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_READ = 2;
    public static final int COMP_SWAP = 3;
    public static final int FETCH_ADD = 4;
    public static final int BIND_MW = 5;
    public static final int LOCAL_INV = 6;
    public static final int RECV = 128;
    public static final int RECV_RDMA_WITH_IMM = 129;

    private WcOpcode()
    {
    }

    /**
     * The name of a completion opcode, for messages ({@code "UNKNOWN"} for others). An error completion's opcode
     * is not defined by verbs: providers leave what they like there.
     */
    public static String name(final int opcode)
    {
        return switch (opcode)
        {
            case SEND -> "SEND";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ -> "RDMA_READ";
            case COMP_SWAP -> "COMP_SWAP";
            case FETCH_ADD -> "FETCH_ADD";
            case BIND_MW -> "BIND_MW";
            case LOCAL_INV -> "LOCAL_INV";
            case RECV -> "RECV";
            case RECV_RDMA_WITH_IMM -> "RECV_RDMA_WITH_IMM";
            default -> "UNKNOWN";
        };
    }

    /** The completion opcode a successful send-queue work request of this {@link Opcode} reports. */
    public static int ofSendOpcode(final int opcode)
    {
        return switch (opcode)
        {
            case Opcode.RDMA_WRITE, Opcode.RDMA_WRITE_WITH_IMM -> RDMA_WRITE;
            case Opcode.SEND, Opcode.SEND_WITH_IMM -> SEND;
            case Opcode.RDMA_READ -> RDMA_READ;
            case Opcode.ATOMIC_CMP_AND_SWP -> COMP_SWAP;
            case Opcode.ATOMIC_FETCH_AND_ADD -> FETCH_ADD;
            case Opcode.BIND_MW -> BIND_MW;
            case Opcode.LOCAL_INV -> LOCAL_INV;
            default -> -1;
        };
    }
}
