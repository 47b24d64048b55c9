package io.rdmakv.verbs.ibverbs;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** Layout of {@code struct pollfd}: {@code fd} s32, {@code events} s16, {@code revents} s16. */
final class Pollfd
{
    static final StructLayout LAYOUT = CStruct.struct("pollfd",
        JAVA_INT.withName("fd"),
        JAVA_SHORT.withName("events"),
        JAVA_SHORT.withName("revents"));

    static final long FD = CStruct.offset(LAYOUT, "fd");
    static final long EVENTS = CStruct.offset(LAYOUT, "events");
    static final long REVENTS = CStruct.offset(LAYOUT, "revents");

    private Pollfd()
    {
    }
}
