package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct ibv_ah_attr} (an address vector): 32 bytes, align 8.
 *
 * <pre>
 *   0 grh struct ibv_global_route (24)   24 dlid u16   26 sl u8   27 src_path_bits u8
 *  28 static_rate u8   29 is_global u8   30 port_num u8, 1 byte padding
 * </pre>
 *
 * InfiniBand addresses the peer by {@code dlid}; RoCE needs {@code is_global = 1} and the GRH.
 */
final class IbvAhAttr
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_ah_attr",
        IbvGlobalRoute.LAYOUT.withName("grh"),
        JAVA_SHORT.withName("dlid"),
        JAVA_BYTE.withName("sl"),
        JAVA_BYTE.withName("src_path_bits"),
        JAVA_BYTE.withName("static_rate"),
        JAVA_BYTE.withName("is_global"),
        JAVA_BYTE.withName("port_num"));

    private IbvAhAttr()
    {
    }
}
