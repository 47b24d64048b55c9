package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** Layout of {@code struct ibv_comp_channel}: 16 bytes ({@code context} ptr, {@code fd} s32, {@code refcnt} s32). */
public final class IbvCompChannel
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_comp_channel",
        ADDRESS.withName("context"),
        JAVA_INT.withName("fd"),
        JAVA_INT.withName("refcnt"));

    public static final long FD = CStruct.offset(LAYOUT, "fd");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvCompChannel()
    {
    }
}
