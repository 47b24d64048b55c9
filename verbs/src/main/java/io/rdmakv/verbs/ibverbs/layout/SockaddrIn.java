package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct sockaddr_in} ({@code <netinet/in.h>}): 16 bytes, align 4. Port and address
 * are in network order. Checked against {@code <rdma/rdma_cma.h>}'s includes by {@code RdmacmLayoutTest}.
 *
 * <pre>
 *   0 sin_family u16   2 sin_port be16   4 sin_addr (struct in_addr, be32)   8 sin_zero[8]
 * </pre>
 */
public final class SockaddrIn
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("sockaddr_in",
        JAVA_SHORT.withName("sin_family"),
        JAVA_SHORT.withName("sin_port"),
        JAVA_INT.withName("sin_addr"),
        CStruct.chars("sin_zero", 8));

    public static final long SIN_FAMILY = CStruct.offset(LAYOUT, "sin_family");
    public static final long SIN_PORT = CStruct.offset(LAYOUT, "sin_port");
    public static final long SIN_ADDR = CStruct.offset(LAYOUT, "sin_addr");
    public static final long SIZE = LAYOUT.byteSize();

    private SockaddrIn()
    {
    }
}
