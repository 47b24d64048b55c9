package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct rdma_cm_event}: 80 bytes, align 8. {@code id} is the id the event is for (for
 * a connect request, a new id bound to the device the request came in on), {@code listen_id} the
 * listening id of a connect request; {@code status} is 0, a negative errno, or for REJECTED the reject
 * reason.
 *
 * <pre>
 *   0 id ptr   8 listen_id ptr   16 event u32   20 status s32
 *  24 param: union { struct rdma_conn_param conn (24); struct rdma_ud_param ud (56) }
 * </pre>
 * (rdma-core after 44.0 adds {@code u64 arg} to the union; it does not change its size.)
 * <pre>
 * </pre>
 */
public final class RdmaCmEvent
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("rdma_cm_event",
        ADDRESS.withName("id"),
        ADDRESS.withName("listen_id"),
        JAVA_INT.withName("event"),
        JAVA_INT.withName("status"),
        CStruct.union("param",
            RdmaConnParam.LAYOUT.withName("conn"),
            RdmaUdParam.LAYOUT.withName("ud")));

    public static final long ID = CStruct.offset(LAYOUT, "id");
    public static final long LISTEN_ID = CStruct.offset(LAYOUT, "listen_id");
    public static final long EVENT = CStruct.offset(LAYOUT, "event");
    public static final long STATUS = CStruct.offset(LAYOUT, "status");
    /** {@code param.conn}: add the {@link RdmaConnParam} offsets. */
    public static final long PARAM_CONN = CStruct.offset(LAYOUT, "param.conn");
    public static final long SIZE = LAYOUT.byteSize();

    private RdmaCmEvent()
    {
    }
}
