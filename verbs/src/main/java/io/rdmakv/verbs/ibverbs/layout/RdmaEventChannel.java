package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/** Layout of {@code struct rdma_event_channel}: 4 bytes, its {@code fd}. */
public final class RdmaEventChannel
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("rdma_event_channel",
        JAVA_INT.withName("fd"));

    public static final long FD = CStruct.offset(LAYOUT, "fd");
    public static final long SIZE = LAYOUT.byteSize();

    private RdmaEventChannel()
    {
    }
}
