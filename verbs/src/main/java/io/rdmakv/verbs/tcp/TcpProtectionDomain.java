package io.rdmakv.verbs.tcp;

import org.agrona.collections.Int2ObjectHashMap;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain of the {@code tcp} provider. Its memory-region table is what the software NIC
 * consults for every remote access: a key is 32 random bits (SecureRandom, never 0, never one in use),
 * looked up in a copy-on-write primitive map without locking or allocating, so a deregistered region's key
 * is refused at once and no key says anything about another.
 */
final class TcpProtectionDomain extends VerbsResource implements ProtectionDomain
{
    /** As many memory regions as the table held when keys were slot numbers. */
    static final int MAX_REGIONS = 1 << 16;

    /** As many memory windows as regions. */
    static final int MAX_WINDOWS = 1 << 16;

    private final TcpContext context;
    /** Never changed once published: registering and deregistering publish a changed copy. */
    private volatile Int2ObjectHashMap<TcpMemoryRegion> regions = new Int2ObjectHashMap<>();
    /**
     * Memory windows by index (the high 24 bits of their rkeys), copy-on-write as {@link #regions}. No
     * region key has a window's index as its high 24 bits, so a key names a region or a window, never both.
     */
    private volatile Int2ObjectHashMap<TcpMemoryWindow> windows = new Int2ObjectHashMap<>();

    TcpProtectionDomain(final TcpContext context)
    {
        super("ibv_dealloc_pd", context);
        this.context = context;
    }

    /** The live region for {@code key}, or null: unknown, stale or deregistered keys all come back null. */
    TcpMemoryRegion lookup(final int key)
    {
        final TcpMemoryRegion mr = regions.get(key);
        return mr != null && !mr.isClosed() ? mr : null;
    }

    /**
     * Whether a remote access that arrived at {@code qp} with {@code key} may touch {@code [addr, addr + len)}
     * with {@code access}: through a live region that grants it, or through a window bound to {@code qp}
     * whose current rkey is {@code key}. Lock-free for regions; a window's check takes its monitor.
     */
    boolean permits(final TcpQueuePair qp, final int key, final long addr, final long len, final int access)
    {
        final TcpMemoryRegion mr = lookup(key);
        if (mr != null)
        {
            return mr.allows(access) && mr.contains(addr, len);
        }
        final TcpMemoryWindow mw = windows.get(key >>> 8);
        return mw != null && mw.permits(qp, key, addr, len, access);
    }

    /** The open window whose rkey is {@code key} (any tag), or null. */
    TcpMemoryWindow window(final int key)
    {
        final TcpMemoryWindow mw = windows.get(key >>> 8);
        return mw != null && !mw.isClosed() ? mw : null;
    }

    @Override
    public synchronized MemoryWindow allocMemoryWindow()
    {
        ensureOpen("ibv_alloc_mw");
        if (windows.size() >= MAX_WINDOWS)
        {
            throw new VerbsException("ibv_alloc_mw", Errno.ENOMEM, "too many memory windows: " + windows.size());
        }
        int key;
        do
        {
            key = context.randomKey();
        }
        while (windows.containsKey(key >>> 8) || regionWithIndex(key >>> 8));
        final TcpMemoryWindow mw = new TcpMemoryWindow(this, key >>> 8, key);
        final Int2ObjectHashMap<TcpMemoryWindow> table = new Int2ObjectHashMap<>(windows);
        table.put(mw.index(), mw);
        windows = table;
        return adopt(mw);
    }

    synchronized void forgetWindow(final TcpMemoryWindow mw)
    {
        if (windows.get(mw.index()) == mw)
        {
            final Int2ObjectHashMap<TcpMemoryWindow> table = new Int2ObjectHashMap<>(windows);
            table.remove(mw.index());
            windows = table;
        }
    }

    /**
     * True while a window is bound over {@code mr}. Under this object's monitor, as every iteration of the
     * tables: Agrona's maps hand out one cached iterator.
     */
    synchronized boolean hasWindowOver(final TcpMemoryRegion mr)
    {
        for (final TcpMemoryWindow mw : windows.values())
        {
            if (mw.holds(mr))
            {
                return true;
            }
        }
        return false;
    }

    /** Caller holds this object's monitor. */
    private boolean regionWithIndex(final int index)
    {
        for (final int key : regions.keySet())
        {
            if ((key >>> 8) == index)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public Context context()
    {
        return context;
    }

    @Override
    public synchronized MemoryRegion registerMemory(final MemorySegment segment, final int access)
    {
        ensureOpen("ibv_reg_mr");
        if (!segment.isNative())
        {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, "only native (off-heap) memory can be registered");
        }
        if (segment.byteSize() == 0)
        {
            throw new VerbsException("ibv_reg_mr", Errno.EINVAL, "cannot register an empty segment");
        }
        if (regions.size() >= MAX_REGIONS)
        {
            throw new VerbsException("ibv_reg_mr", Errno.ENOMEM, "too many memory regions: " + regions.size());
        }
        int key;
        do
        {
            key = context.randomKey();
        }
        while (regions.containsKey(key) || windows.containsKey(key >>> 8));
        final TcpMemoryRegion mr = new TcpMemoryRegion(this, segment, key, access);
        final Int2ObjectHashMap<TcpMemoryRegion> table = new Int2ObjectHashMap<>(regions);
        table.put(key, mr);
        regions = table;
        return adopt(mr);
    }

    synchronized void deregister(final TcpMemoryRegion mr)
    {
        if (regions.get(mr.rkey()) == mr)
        {
            final Int2ObjectHashMap<TcpMemoryRegion> table = new Int2ObjectHashMap<>(regions);
            table.remove(mr.rkey());
            regions = table;
        }
    }

    @Override
    public QueuePair createQueuePair(final QueuePairConfig config)
    {
        synchronized (this)
        {
            ensureOpen("ibv_create_qp");
        }
        if (!(config.sendCq() instanceof TcpCompletionQueue sendCq) ||
            !(config.recvCq() instanceof TcpCompletionQueue recvCq) ||
            sendCq.context() != context || recvCq.context() != context)
        {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, "completion queues must belong to this device");
        }
        final TcpQueuePair qp = adopt(new TcpQueuePair(this, config, sendCq, recvCq));
        context.register(qp);
        return qp;
    }

    @Override
    protected String resourceName()
    {
        return "protection domain";
    }

    @Override
    protected String openChildrenMessage()
    {
        return "protection domain still has " + openChildren(TcpMemoryRegion.class) + " memory region(s), " +
            openChildren(TcpMemoryWindow.class) + " memory window(s) and " + openChildren(TcpQueuePair.class) +
            " queue pair(s) open: close them first";
    }

    /** Nothing to free: the region table empties as its regions close. */
    @Override
    protected int release()
    {
        return 0;
    }
}
