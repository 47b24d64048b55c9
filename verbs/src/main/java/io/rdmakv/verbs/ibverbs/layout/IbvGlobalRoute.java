package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_global_route} (the GRH part of an address vector): 24 bytes, align 8.
 *
 * <pre>
 *   0 dgid union ibv_gid (16)   16 flow_label u32   20 sgid_index u8   21 hop_limit u8
 *  22 traffic_class u8, 1 byte padding
 * </pre>
 */
final class IbvGlobalRoute
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_global_route",
        IbvGid.LAYOUT.withName("dgid"),
        JAVA_INT.withName("flow_label"),
        JAVA_BYTE.withName("sgid_index"),
        JAVA_BYTE.withName("hop_limit"),
        JAVA_BYTE.withName("traffic_class"));

    private IbvGlobalRoute()
    {
    }
}
