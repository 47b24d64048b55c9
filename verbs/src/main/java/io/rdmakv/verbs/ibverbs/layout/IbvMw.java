package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_mw}: 32 bytes, align 8.
 *
 * <pre>
 *   0 context ptr   8 pd ptr   16 rkey u32   20 handle u32   24 type u32 (enum ibv_mw_type), 4 bytes padding
 * </pre>
 */
public final class IbvMw
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_mw",
        ADDRESS.withName("context"),
        ADDRESS.withName("pd"),
        JAVA_INT.withName("rkey"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("type"));

    public static final long CONTEXT = CStruct.offset(LAYOUT, "context");
    public static final long RKEY = CStruct.offset(LAYOUT, "rkey");
    static final long TYPE = CStruct.offset(LAYOUT, "type");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvMw()
    {
    }
}
