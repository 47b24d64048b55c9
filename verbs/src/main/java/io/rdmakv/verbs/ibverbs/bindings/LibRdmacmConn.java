package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static io.rdmakv.verbs.ibverbs.bindings.RdmacmLibrary.downcall;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The connection functions of {@code librdmacm.so.1}: connect, accept, reject, establish, disconnect
 * and {@code rdma_init_qp_attr}, bound once, wrapped as {@link LibRdmacm}. rdmakv connects queue pairs it
 * created itself ({@code ibv_create_qp}), so it passes their number in {@code struct rdma_conn_param}
 * and moves them through INIT, RTR and RTS with the attributes {@code rdma_init_qp_attr} gives; the
 * {@code rdma_create_qp} family is not bound.
 */
public final class LibRdmacmConn
{
    private static final MethodHandle CONNECT = downcall("rdma_connect", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle ACCEPT = downcall("rdma_accept", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle REJECT = downcall("rdma_reject", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
    private static final MethodHandle ESTABLISH = downcall("rdma_establish", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle DISCONNECT = downcall("rdma_disconnect", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle INIT_QP_ATTR = downcall("rdma_init_qp_attr", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    private LibRdmacmConn()
    {
    }

    /** Sends the connect request; CONNECT_RESPONSE (no QP on the id), ESTABLISHED (iWARP), REJECTED, UNREACHABLE or CONNECT_ERROR follows. @return 0, or -1 with errno */
    public static int rdmaConnect(final MemorySegment state, final MemorySegment id, final MemorySegment connParam)
    {
        try
        {
            return (int)CONNECT.invokeExact(state, id, connParam);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Answers a connect request; ESTABLISHED follows once the peer confirms. @return 0, or -1 with errno */
    public static int rdmaAccept(final MemorySegment state, final MemorySegment id, final MemorySegment connParam)
    {
        try
        {
            return (int)ACCEPT.invokeExact(state, id, connParam);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** @return 0, or -1 with errno */
    public static int rdmaReject(final MemorySegment state, final MemorySegment id, final MemorySegment privateData, final byte privateDataLen)
    {
        try
        {
            return (int)REJECT.invokeExact(state, id, privateData, privateDataLen);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Completes the active side of a connection whose QP the caller moved to RTS itself (sends the RTU). @return 0, or -1 with errno */
    public static int rdmaEstablish(final MemorySegment state, final MemorySegment id)
    {
        try
        {
            return (int)ESTABLISH.invokeExact(state, id);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Sends a disconnect request; DISCONNECTED follows on both sides. @return 0, or -1 with errno */
    public static int rdmaDisconnect(final MemorySegment state, final MemorySegment id)
    {
        try
        {
            return (int)DISCONNECT.invokeExact(state, id);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Fills {@code qpAttr} for the transition to {@code qpAttr->qp_state} as the connection manager sees it (path, peer QPN, PSNs, responder resources) and stores the {@code ibv_modify_qp} mask in {@code qpAttrMaskOut}. @return 0, or -1 with errno */
    public static int rdmaInitQpAttr(final MemorySegment state, final MemorySegment id, final MemorySegment qpAttr, final MemorySegment qpAttrMaskOut)
    {
        try
        {
            return (int)INIT_QP_ATTR.invokeExact(state, id, qpAttr, qpAttrMaskOut);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

}
