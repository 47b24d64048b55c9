package io.rdmakv.verbs.ibverbs;

/**
 * The {@code verbs.h} (and libc) constants the bindings use that the API classes do not already hold,
 * named exactly as in C so that they can be grepped both ways. The work-request, access-flag and
 * completion constants live in the API ({@link io.rdmakv.verbs.Opcode}, {@link io.rdmakv.verbs.SendFlags},
 * {@link io.rdmakv.verbs.AccessFlags}, {@link io.rdmakv.verbs.WcOpcode}, {@link io.rdmakv.verbs.WcStatus},
 * {@link io.rdmakv.verbs.QpState}). The layout test checks every field here against the header.
 */
final class IbvConstants
{
    // enum ibv_qp_attr_mask
    static final int IBV_QP_STATE = 1;
    static final int IBV_QP_CUR_STATE = 1 << 1;
    static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    static final int IBV_QP_PKEY_INDEX = 1 << 4;
    static final int IBV_QP_PORT = 1 << 5;
    static final int IBV_QP_AV = 1 << 7;
    static final int IBV_QP_PATH_MTU = 1 << 8;
    static final int IBV_QP_TIMEOUT = 1 << 9;
    static final int IBV_QP_RETRY_CNT = 1 << 10;
    static final int IBV_QP_RNR_RETRY = 1 << 11;
    static final int IBV_QP_RQ_PSN = 1 << 12;
    static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    static final int IBV_QP_SQ_PSN = 1 << 16;
    static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    static final int IBV_QP_CAP = 1 << 19;
    static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_qp_type
    static final int IBV_QPT_RC = 2;

    // enum ibv_mtu
    static final int IBV_MTU_256 = 1;
    static final int IBV_MTU_512 = 2;
    static final int IBV_MTU_1024 = 3;
    static final int IBV_MTU_2048 = 4;
    static final int IBV_MTU_4096 = 5;

    // enum ibv_port_state
    static final int IBV_PORT_NOP = 0;
    static final int IBV_PORT_DOWN = 1;
    static final int IBV_PORT_INIT = 2;
    static final int IBV_PORT_ARMED = 3;
    static final int IBV_PORT_ACTIVE = 4;
    static final int IBV_PORT_ACTIVE_DEFER = 5;

    // IBV_LINK_LAYER_* (anonymous enum)
    static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    static final int IBV_LINK_LAYER_INFINIBAND = 1;
    static final int IBV_LINK_LAYER_ETHERNET = 2;

    // enum ibv_gid_type
    static final int IBV_GID_TYPE_IB = 0;
    static final int IBV_GID_TYPE_ROCE_V1 = 1;
    static final int IBV_GID_TYPE_ROCE_V2 = 2;

    // enum ibv_atomic_cap
    static final int IBV_ATOMIC_NONE = 0;
    static final int IBV_ATOMIC_HCA = 1;
    static final int IBV_ATOMIC_GLOB = 2;

    // enum ibv_mw_type
    static final int IBV_MW_TYPE_1 = 1;
    static final int IBV_MW_TYPE_2 = 2;

    // <sys/resource.h>, <poll.h>, <errno.h>, <sys/eventfd.h>
    static final int RLIMIT_MEMLOCK = 8;
    /** {@code RLIM_INFINITY}: all ones in the unsigned 64-bit {@code rlim_t}. */
    static final long RLIM_INFINITY = -1L;
    static final int POLLIN = 1;
    static final int EINTR = 4;
    static final int ENODATA = 61;
    static final int EFD_NONBLOCK = 04000;
    static final int EFD_CLOEXEC = 02000000;

    private IbvConstants()
    {
    }

    static String portStateName(final int state)
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

    static String linkLayerName(final int linkLayer)
    {
        return switch (linkLayer)
        {
            case IBV_LINK_LAYER_INFINIBAND -> "InfiniBand";
            case IBV_LINK_LAYER_ETHERNET -> "Ethernet";
            default -> "unspecified(" + linkLayer + ")";
        };
    }

    static String atomicCapName(final int cap)
    {
        return switch (cap)
        {
            case IBV_ATOMIC_NONE -> "NONE";
            case IBV_ATOMIC_HCA -> "HCA";
            case IBV_ATOMIC_GLOB -> "GLOB";
            default -> "UNKNOWN(" + cap + ")";
        };
    }

    static String gidTypeName(final int type)
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
    static int mtuBytes(final int mtu)
    {
        return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
    }
}
