package io.rdmakv.verbs.ibverbs.bindings;

import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The verbs {@code verbs.h} defines {@code static inline}: no symbol exists, the C code jumps through
 * the provider's function pointers in {@code struct ibv_context.ops}. Here: one address-less downcall
 * handle per C signature (the pointer is the first argument), the pointer read once per completion
 * queue or queue pair by {@link #resolve}.
 *
 * <p>These are the data path: no {@code errno} capture (the verbs return their error), and
 * {@code Linker.Option.critical(false)}, which skips the thread-state transition; allowed because the
 * provider code is short, never blocks for long and never calls back into Java.
 */
public final class InlineVerbs
{
    private static final Linker LINKER = Linker.nativeLinker();

    /** {@code int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)}. */
    private static final MethodHandle POLL_CQ = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));

    /** {@code int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only)}. */
    private static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.critical(false));

    /**
     * {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)} and
     * {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}: one
     * signature, one handle.
     */
    private static final MethodHandle POST = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Linker.Option.critical(false));

    private InlineVerbs()
    {
    }

    /**
     * The function pointer at {@code opsOffset} in the {@code struct ibv_context} that {@code object}
     * (a {@code struct ibv_cq *} or {@code struct ibv_qp *}, both start with their context pointer)
     * belongs to. Throws when the provider left it NULL: calling NULL would crash the JVM.
     */
    public static MemorySegment resolve(final MemorySegment object, final long opsOffset, final String verb)
    {
        final MemorySegment context = object.reinterpret(ADDRESS.byteSize()).get(ADDRESS, 0)
            .reinterpret(IbvContextStruct.SIZE);
        final MemorySegment fn = context.get(ADDRESS, opsOffset);
        if (fn.address() == 0)
        {
            throw new VerbsException(verb, io.rdmakv.verbs.resource.Errno.EOPNOTSUPP,
                "the device's provider library has no " + verb + " (NULL in struct ibv_context.ops)");
        }
        return fn;
    }

    public static int pollCq(
        final MemorySegment fn, final MemorySegment cq, final int numEntries, final MemorySegment wc)
    {
        try
        {
            return (int)POLL_CQ.invokeExact(fn, cq, numEntries, wc);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    public static int reqNotifyCq(final MemorySegment fn, final MemorySegment cq, final int solicitedOnly)
    {
        try
        {
            return (int)REQ_NOTIFY_CQ.invokeExact(fn, cq, solicitedOnly);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /** {@code post_send} or {@code post_recv}, whichever {@code fn} is. */
    public static int post(
        final MemorySegment fn, final MemorySegment qp, final MemorySegment wr, final MemorySegment badWr)
    {
        try
        {
            return (int)POST.invokeExact(fn, qp, wr, badWr);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }
}
