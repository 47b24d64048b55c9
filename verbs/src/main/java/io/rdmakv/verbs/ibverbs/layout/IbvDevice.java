package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_device}, what {@code ibv_context.device} points to: 664 bytes, align 8. Read for
 * its transport type (iWARP devices are connected through rdma_cm only).
 *
 * <pre>
 *   0 _ops            struct _ibv_device_ops (two pointers, 16)
 *  16 node_type       s32 (enum ibv_node_type)
 *  20 transport_type  s32 (enum ibv_transport_type: IB 0, iWARP 1)
 *  24 name            char[64]
 *  88 dev_name        char[64]
 * 152 dev_path        char[256]
 * 408 ibdev_path      char[256]
 * </pre>
 */
public final class IbvDevice
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_device",
        CStruct.struct("_ibv_device_ops", ADDRESS.withName("_dummy1"), ADDRESS.withName("_dummy2"))
            .withName("_ops"),
        JAVA_INT.withName("node_type"),
        JAVA_INT.withName("transport_type"),
        CStruct.chars("name", 64),
        CStruct.chars("dev_name", 64),
        CStruct.chars("dev_path", 256),
        CStruct.chars("ibdev_path", 256));

    public static final long TRANSPORT_TYPE = CStruct.offset(LAYOUT, "transport_type");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvDevice()
    {
    }
}
