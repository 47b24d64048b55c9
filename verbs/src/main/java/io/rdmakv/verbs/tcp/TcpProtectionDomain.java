package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.VerbsException;
import io.rdmakv.verbs.VerbsResource;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A protection domain of the {@code tcp} provider. Its memory-region table is what the software NIC
 * consults for every remote access: a key is {@code (slot << 8) | generation}, looked up in a
 * copy-on-write array without locking or allocating, so a deregistered region's key is refused at once.
 */
final class TcpProtectionDomain extends VerbsResource implements ProtectionDomain
{
    private final TcpContext context;
    private volatile TcpMemoryRegion[] regions = new TcpMemoryRegion[16];
    private final byte[] generations = new byte[1 << 16];

    TcpProtectionDomain(final TcpContext context)
    {
        super("ibv_dealloc_pd", context);
        this.context = context;
        ThreadLocalRandom.current().nextBytes(generations);
    }

    /** The live region for {@code key}, or null: unknown, stale or deregistered keys all come back null. */
    TcpMemoryRegion lookup(final int key)
    {
        final int slot = key >>> 8;
        final TcpMemoryRegion[] table = regions;
        if (slot >= table.length)
        {
            return null;
        }
        final TcpMemoryRegion mr = table[slot];
        return mr != null && mr.rkey() == key && !mr.isClosed() ? mr : null;
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
        TcpMemoryRegion[] table = regions;
        int slot = 1;
        while (slot < table.length && table[slot] != null)
        {
            slot++;
        }
        if (slot == table.length)
        {
            if (table.length >= generations.length)
            {
                throw new VerbsException("ibv_reg_mr", Errno.ENOMEM, "too many memory regions: " + table.length);
            }
            table = Arrays.copyOf(table, table.length * 2);
        }
        else
        {
            table = table.clone();
        }
        final int generation = ++generations[slot] & 0xff;
        final TcpMemoryRegion mr = new TcpMemoryRegion(this, segment, (slot << 8) | generation, access);
        table[slot] = mr;
        regions = table;
        return adopt(mr);
    }

    synchronized void deregister(final TcpMemoryRegion mr)
    {
        final TcpMemoryRegion[] table = regions.clone();
        final int slot = mr.rkey() >>> 8;
        if (table[slot] == mr)
        {
            table[slot] = null;
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
        return "protection domain still has " + openChildren(TcpMemoryRegion.class) + " memory region(s) and " +
            openChildren(TcpQueuePair.class) + " queue pair(s) open: close them first";
    }

    /** Nothing to free: the region table empties as its regions close. */
    @Override
    protected int release()
    {
        return 0;
    }
}
