package io.rdmakv.verbs.ibverbs.bindings;

/**
 * The {@code verbs.h} (and libc) constants the bindings use that the API classes do not already hold,
 * named exactly as in C so that they can be grepped both ways. The work-request, access-flag and
 * completion constants live in the API ({@link io.rdmakv.verbs.Opcode}, {@link io.rdmakv.verbs.SendFlags},
 * {@link io.rdmakv.verbs.AccessFlags}, {@link io.rdmakv.verbs.WcOpcode}, {@link io.rdmakv.verbs.WcStatus},
 * {@link io.rdmakv.verbs.QpState}). The layout test checks every field here against the header.
 */
public final class IbvConstants
{
    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    public static final int IBV_QP_PORT = 1 << 5;
    public static final int IBV_QP_AV = 1 << 7;
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int IBV_QP_CAP = 1 << 19;
    public static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;

    // enum ibv_mtu
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_512 = 2;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_2048 = 4;
    public static final int IBV_MTU_4096 = 5;

    // enum ibv_port_state
    public static final int IBV_PORT_NOP = 0;
    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_INIT = 2;
    public static final int IBV_PORT_ARMED = 3;
    public static final int IBV_PORT_ACTIVE = 4;
    public static final int IBV_PORT_ACTIVE_DEFER = 5;

    // IBV_LINK_LAYER_* (anonymous enum)
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    // enum ibv_gid_type
    public static final int IBV_GID_TYPE_IB = 0;
    public static final int IBV_GID_TYPE_ROCE_V1 = 1;
    public static final int IBV_GID_TYPE_ROCE_V2 = 2;

    // enum ibv_transport_type (struct ibv_device)
    public static final int IBV_TRANSPORT_IB = 0;
    public static final int IBV_TRANSPORT_IWARP = 1;

    // enum ibv_atomic_cap
    public static final int IBV_ATOMIC_NONE = 0;
    public static final int IBV_ATOMIC_HCA = 1;
    public static final int IBV_ATOMIC_GLOB = 2;

    // enum ibv_mw_type
    public static final int IBV_MW_TYPE_1 = 1;
    public static final int IBV_MW_TYPE_2 = 2;

    // <sys/resource.h>, <poll.h>, <errno.h>, <sys/eventfd.h>
    public static final int RLIMIT_MEMLOCK = 8;
    /** {@code RLIM_INFINITY}: all ones in the unsigned 64-bit {@code rlim_t}. */
    public static final long RLIM_INFINITY = -1L;
    public static final int POLLIN = 1;
    public static final int EINTR = 4;
    public static final int ENODATA = 61;
    public static final int EFD_NONBLOCK = 04000;
    public static final int EFD_CLOEXEC = 02000000;

    // <fcntl.h>
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 04000;

    private IbvConstants()
    {
    }

    public static String portStateName(final int state)
    {
        return switch (state)
        {
            case IBV_PORT_NOP -> "NOP";
            case IBV_PORT_DOWN -> "DOWN";
            case IBV_PORT_INIT -> "INIT";
            case IBV_PORT_ARMED -> "ARMED";
            case IBV_PORT_ACTIVE -> "ACTIVE";
            case IBV_PORT_ACTIVE_DEFER -> "ACTIVE_DEFER";
            default -> "UNKNOWN(" + state + ")";
        };
    }

    public static String linkLayerName(final int linkLayer)
    {
        return switch (linkLayer)
        {
            case IBV_LINK_LAYER_INFINIBAND -> "InfiniBand";
            case IBV_LINK_LAYER_ETHERNET -> "Ethernet";
            default -> "unspecified(" + linkLayer + ")";
        };
    }

    public static String atomicCapName(final int cap)
    {
        return switch (cap)
        {
            case IBV_ATOMIC_NONE -> "NONE";
            case IBV_ATOMIC_HCA -> "HCA";
            case IBV_ATOMIC_GLOB -> "GLOB";
            default -> "UNKNOWN(" + cap + ")";
        };
    }

    public static String gidTypeName(final int type)
    {
        return switch (type)
        {
            case IBV_GID_TYPE_IB -> "IB";
            case IBV_GID_TYPE_ROCE_V1 -> "RoCE v1";
            case IBV_GID_TYPE_ROCE_V2 -> "RoCE v2";
            default -> "UNKNOWN(" + type + ")";
        };
    }

    /** Bytes of an {@code enum ibv_mtu} value (0 for an unknown one). */
    public static int mtuBytes(final int mtu)
    {
        return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
    }
}
