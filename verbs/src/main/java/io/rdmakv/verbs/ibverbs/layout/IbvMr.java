package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layout of {@code struct ibv_mr}: 48 bytes, align 8.
 *
 * <pre>
 *   0 context ptr   8 pd ptr   16 addr ptr   24 length size_t   32 handle u32   36 lkey u32   40 rkey u32
 * </pre>
 */
public final class IbvMr
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_mr",
        ADDRESS.withName("context"),
        ADDRESS.withName("pd"),
        ADDRESS.withName("addr"),
        JAVA_LONG.withName("length"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("lkey"),
        JAVA_INT.withName("rkey"));

    public static final long ADDR = CStruct.offset(LAYOUT, "addr");
    public static final long LENGTH = CStruct.offset(LAYOUT, "length");
    public static final long LKEY = CStruct.offset(LAYOUT, "lkey");
    public static final long RKEY = CStruct.offset(LAYOUT, "rkey");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvMr()
    {
    }
}
