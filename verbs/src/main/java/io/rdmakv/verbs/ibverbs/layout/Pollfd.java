package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** Layout of {@code struct pollfd}: {@code fd} s32, {@code events} s16, {@code revents} s16. */
public final class Pollfd
{
    public static final StructLayout LAYOUT = CStruct.struct("pollfd",
        JAVA_INT.withName("fd"),
        JAVA_SHORT.withName("events"),
        JAVA_SHORT.withName("revents"));

    public static final long FD = CStruct.offset(LAYOUT, "fd");
    public static final long EVENTS = CStruct.offset(LAYOUT, "events");
    public static final long REVENTS = CStruct.offset(LAYOUT, "revents");

    private Pollfd()
    {
    }
}
