package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.resource.VerbsResource;
import io.rdmakv.verbs.WcStatus;

/**
 * A type-2 memory window of the {@code tcp} provider, with the checks and states of a NIC's (the IBA
 * rules rxe's {@code rxe_mw.c} implements): FREE after allocation and after invalidation, VALID while a
 * bind grants one queue pair access to a range of one region. Its rkey is the window's 24-bit index
 * (fixed, unique in the protection domain) over an 8-bit tag the binder chooses; only the current rkey
 * opens it.
 *
 * <p>The state is a handful of fields under this object's monitor: the binding thread (a send queue's
 * poster) writes them, the responder thread reads them for each access through the window; uncontended,
 * allocation-free.
 */
final class TcpMemoryWindow extends VerbsResource implements MemoryWindow
{
    /** Accesses a window can grant (what rxe's RXE_ACCESS_SUPPORTED_MW allows, less zero-based). */
    static final int GRANTABLE = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC;

    private final TcpProtectionDomain pd;
    private final int index;

    /** The rkey that opens the window: the last successful bind's (the NIC's view). */
    private int rkey;
    /** The rkey of the last bind posted, successful or not (the consumer's view, {@link #rkey()}). */
    private int postedRkey;
    private TcpQueuePair boundQp;
    private TcpMemoryRegion boundMr;
    private long addr;
    private long length;
    private int access;

    TcpMemoryWindow(final TcpProtectionDomain pd, final int index, final int tag)
    {
        super("ibv_dealloc_mw", pd);
        this.pd = pd;
        this.index = index;
        this.rkey = (index << 8) | (tag & TAG_MASK);
        this.postedRkey = rkey;
    }

    int index()
    {
        return index;
    }

    /**
     * Executes a BIND_MW posted on {@code qp} (the send queue calls it in posting order).
     *
     * @return {@link WcStatus#SUCCESS}, or {@link WcStatus#MW_BIND_ERR} for a bind the IBA refuses: the
     * window bound already (o10-37.2.30) or closed, another protection domain (C10-72), an empty range
     * (o10-37.2.40), a region closed, of another domain or without MW_BIND (C10-73), a writable or
     * atomic window over a region without LOCAL_WRITE (C10-74), a range outside the region (C10-75), an
     * access a window cannot grant, or a new rkey that changes the window's index
     */
    synchronized WcStatus bind(final TcpQueuePair qp, final int newRkey, final TcpMemoryRegion mr,
        final long bindAddr, final long bindLength, final int bindAccess)
    {
        if ((newRkey >>> 8) == index)
        {
            postedRkey = newRkey;
        }
        if (isClosed() || boundQp != null || qp.protectionDomain() != pd || bindLength <= 0 ||
            mr.isClosed() || mr.protectionDomain() != pd || !mr.allows(AccessFlags.MW_BIND) ||
            ((bindAccess & (AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC)) != 0 &&
                !mr.allows(AccessFlags.LOCAL_WRITE)) ||
            !mr.contains(bindAddr, bindLength) || (bindAccess & ~GRANTABLE) != 0 || (newRkey >>> 8) != index)
        {
            return WcStatus.MW_BIND_ERR;
        }
        rkey = newRkey;
        boundQp = qp;
        boundMr = mr;
        addr = bindAddr;
        length = bindLength;
        access = bindAccess;
        return WcStatus.SUCCESS;
    }

    /**
     * Executes a LOCAL_INV of {@code invalidateRkey}: the window grants nothing after and may be bound
     * again. {@link WcStatus#LOC_QP_OP_ERR} (what rxe reports) when the rkey is not the window's current
     * one or the window is not bound.
     */
    synchronized WcStatus invalidate(final int invalidateRkey)
    {
        if (isClosed() || boundQp == null || invalidateRkey != rkey)
        {
            return WcStatus.LOC_QP_OP_ERR;
        }
        unbind();
        return WcStatus.SUCCESS;
    }

    /**
     * True when an access arriving at {@code qp} with {@code key} may touch {@code [at, at + len)} with
     * {@code wanted}: the window is bound to that queue pair, the key is its current rkey (tag included),
     * the range lies inside the bound one and the bind granted the access.
     */
    synchronized boolean permits(final TcpQueuePair qp, final int key, final long at, final long len, final int wanted)
    {
        return boundQp == qp && key == rkey && (access & wanted) == wanted && !boundMr.isClosed() &&
            len >= 0 && at >= addr && at - addr <= length - len;
    }

    /** True while a bind holds {@code mr} (the region refuses to deregister, as rxe does). */
    synchronized boolean holds(final TcpMemoryRegion mr)
    {
        return boundMr == mr;
    }

    private void unbind()
    {
        boundQp = null;
        boundMr = null;
        addr = 0;
        length = 0;
        access = 0;
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return pd;
    }

    @Override
    public synchronized int rkey()
    {
        return postedRkey;
    }

    @Override
    protected String resourceName()
    {
        return "memory window " + index;
    }

    /** Dealloc while bound ends the grant: the state goes with the window. */
    @Override
    protected int release()
    {
        unbind();
        return 0;
    }

    /** Leaves the protection domain's table: the index may be reused. */
    @Override
    protected void afterRelease()
    {
        pd.forgetWindow(this);
    }

    @Override
    public synchronized String toString()
    {
        return "TcpMemoryWindow{rkey=0x" + Integer.toHexString(rkey) + (boundQp == null ? ", free" :
            ", qp=" + boundQp.qpNum() + ", addr=0x" + Long.toHexString(addr) + ", length=" + length + ", access=" +
                AccessFlags.describe(access)) + '}';
    }
}
