package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct sockaddr_in6} ({@code <netinet/in.h>}): 28 bytes, align 4. Port and address
 * are in network order.
 *
 * <pre>
 *   0 sin6_family u16   2 sin6_port be16   4 sin6_flowinfo be32   8 sin6_addr[16]   24 sin6_scope_id u32
 * </pre>
 */
public final class SockaddrIn6
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("sockaddr_in6",
        JAVA_SHORT.withName("sin6_family"),
        JAVA_SHORT.withName("sin6_port"),
        JAVA_INT.withName("sin6_flowinfo"),
        CStruct.chars("sin6_addr", 16),
        JAVA_INT.withName("sin6_scope_id"));

    public static final long SIN6_FAMILY = CStruct.offset(LAYOUT, "sin6_family");
    public static final long SIN6_PORT = CStruct.offset(LAYOUT, "sin6_port");
    public static final long SIN6_ADDR = CStruct.offset(LAYOUT, "sin6_addr");
    public static final long SIN6_SCOPE_ID = CStruct.offset(LAYOUT, "sin6_scope_id");
    public static final long SIZE = LAYOUT.byteSize();

    private SockaddrIn6()
    {
    }
}
