package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Layout of {@code struct timespec} (x86_64): {@code tv_sec} s64, {@code tv_nsec} s64. */
public final class Timespec
{
    public static final StructLayout LAYOUT = CStruct.struct("timespec",
        JAVA_LONG.withName("tv_sec"),
        JAVA_LONG.withName("tv_nsec"));

    public static final long TV_SEC = CStruct.offset(LAYOUT, "tv_sec");
    public static final long TV_NSEC = CStruct.offset(LAYOUT, "tv_nsec");

    private Timespec()
    {
    }
}
