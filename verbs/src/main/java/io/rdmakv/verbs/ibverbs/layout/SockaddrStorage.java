package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct sockaddr_storage} (glibc): 128 bytes, align 8, room for any socket address;
 * {@code ss_family} says which ({@link SockaddrIn} or {@link SockaddrIn6} at the same place).
 */
public final class SockaddrStorage
{
    public static final String HEADER = RdmaCmId.HEADER;

    public static final StructLayout LAYOUT = CStruct.struct("sockaddr_storage",
        JAVA_SHORT.withName("ss_family"),
        CStruct.chars("__ss_padding", 118),
        JAVA_LONG.withName("__ss_align"));

    public static final long SS_FAMILY = CStruct.offset(LAYOUT, "ss_family");

    private SockaddrStorage()
    {
    }
}
