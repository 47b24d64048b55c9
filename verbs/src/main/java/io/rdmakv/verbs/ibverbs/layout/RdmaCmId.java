package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct rdma_cm_id}: 416 bytes, align 8. {@code verbs} is the device context librdmacm
 * opened for the id (set once an address is bound or resolved), {@code port_num} its port; {@code qp}
 * stays NULL in rdmakv, which connects queue pairs it created itself.
 *
 * <pre>
 *   0 verbs ptr   8 channel ptr   16 context ptr   24 qp ptr   32 route (struct rdma_route, 312)
 * 344 ps u32   348 port_num u8   352 event ptr   360 send_cq_channel   368 send_cq   376 recv_cq_channel
 * 384 recv_cq   392 srq   400 pd   408 qp_type u32, 4 bytes padding
 * </pre>
 */
public final class RdmaCmId
{
    /** The header the rdma_cm descriptors are checked against (by {@code RdmacmLayoutTest}, not {@code IbverbsLayoutTest}). */
    public static final String HEADER = "rdma/rdma_cma.h";

    static final StructLayout LAYOUT = CStruct.struct("rdma_cm_id",
        ADDRESS.withName("verbs"),
        ADDRESS.withName("channel"),
        ADDRESS.withName("context"),
        ADDRESS.withName("qp"),
        RdmaRoute.LAYOUT.withName("route"),
        JAVA_INT.withName("ps"),
        JAVA_BYTE.withName("port_num"),
        ADDRESS.withName("event"),
        ADDRESS.withName("send_cq_channel"),
        ADDRESS.withName("send_cq"),
        ADDRESS.withName("recv_cq_channel"),
        ADDRESS.withName("recv_cq"),
        ADDRESS.withName("srq"),
        ADDRESS.withName("pd"),
        JAVA_INT.withName("qp_type"));

    public static final long VERBS = CStruct.offset(LAYOUT, "verbs");
    public static final long CHANNEL = CStruct.offset(LAYOUT, "channel");
    public static final long PORT_NUM = CStruct.offset(LAYOUT, "port_num");
    public static final long ROUTE_ADDR_SRC = CStruct.offset(LAYOUT, "route.addr.src_storage");
    public static final long ROUTE_ADDR_DST = CStruct.offset(LAYOUT, "route.addr.dst_storage");
    public static final long SIZE = LAYOUT.byteSize();

    private RdmaCmId()
    {
    }
}
