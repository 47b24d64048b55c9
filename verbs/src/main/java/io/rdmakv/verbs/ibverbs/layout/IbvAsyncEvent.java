package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_async_event}: 16 bytes. {@code element} is a union of the object the
 * event is about ({@code cq}, {@code qp}, {@code srq}, {@code wq} pointers or an int {@code port_num}).
 */
public final class IbvAsyncEvent
{
    public static final StructLayout LAYOUT = CStruct.struct("ibv_async_event",
        CStruct.union("element",
            ADDRESS.withName("cq"),
            ADDRESS.withName("qp"),
            ADDRESS.withName("srq"),
            ADDRESS.withName("wq"),
            JAVA_INT.withName("port_num")),
        JAVA_INT.withName("event_type"));

    public static final long ELEMENT = CStruct.offset(LAYOUT, "element");
    public static final long ELEMENT_PORT_NUM = CStruct.offset(LAYOUT, "element.port_num");
    public static final long EVENT_TYPE = CStruct.offset(LAYOUT, "event_type");

    private IbvAsyncEvent()
    {
    }
}
