package io.rdmakv.verbs.ibverbs.bindings;

/**
 * The {@code <rdma/rdma_cma.h>} (and socket) constants the rdma_cm bindings use, named exactly as in C.
 * {@code RdmacmLayoutTest} checks every field here against the installed header.
 */
public final class RdmaCmConstants
{
    // enum rdma_cm_event_type
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    // enum rdma_port_space
    public static final int RDMA_PS_TCP = 0x0106;

    // anonymous enum: "as many as the device allows" in struct rdma_conn_param
    public static final int RDMA_MAX_RESP_RES = 0xFF;
    public static final int RDMA_MAX_INIT_DEPTH = 0xFF;

    // <sys/socket.h>
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    private RdmaCmConstants()
    {
    }
}
