package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * The {@code errno} a control-path downcall left behind, captured by the linker right after the call
 * ({@code Linker.Option.captureCallState("errno")}); reading {@code errno} with a separate call later
 * is unreliable because the JVM itself may change it in between.
 */
public final class CallState
{
    static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private CallState()
    {
    }

    public static MemorySegment allocate(final Arena arena)
    {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    public static int errno(final MemorySegment state)
    {
        return (int)ERRNO.get(state, 0L);
    }

    /**
     * The errno of an int-returning verb: libibverbs returns the errno value itself (positive) from most
     * verbs, -1 with {@code errno} set from a few ({@code ibv_close_device}, the event calls), and a
     * negative errno from some provider paths.
     */
    public static int errnoOf(final int rc, final MemorySegment state)
    {
        if (rc > 0)
        {
            return rc;
        }
        if (rc == -1)
        {
            return errno(state);
        }
        return -rc;
    }
}
