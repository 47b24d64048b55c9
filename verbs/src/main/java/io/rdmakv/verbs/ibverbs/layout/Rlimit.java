package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Layout of glibc's {@code struct rlimit} (x86_64): {@code rlim_cur}, {@code rlim_max}, both {@code rlim_t} (u64). */
public final class Rlimit
{
    public static final StructLayout LAYOUT = CStruct.struct("rlimit",
        JAVA_LONG.withName("rlim_cur"),
        JAVA_LONG.withName("rlim_max"));

    public static final long RLIM_CUR = CStruct.offset(LAYOUT, "rlim_cur");
    public static final long RLIM_MAX = CStruct.offset(LAYOUT, "rlim_max");

    private Rlimit()
    {
    }
}
