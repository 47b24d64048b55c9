package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.MemorySegment;

/** A memory region of the {@code tcp} provider: a key in its protection domain's table and the bounds it grants. */
final class TcpMemoryRegion extends VerbsResource implements MemoryRegion
{
    private final TcpProtectionDomain pd;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int key;
    private final int access;

    TcpMemoryRegion(
        final TcpProtectionDomain pd, final MemorySegment segment, final int key, final int access)
    {
        super("ibv_dereg_mr", pd);
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.key = key;
        this.access = access;
    }

    /** True when {@code [addr, addr + len)} lies inside the region. */
    boolean contains(final long addr, final long len)
    {
        return len >= 0 && addr >= address && addr - address <= length - len;
    }

    boolean allows(final int flag)
    {
        return (access & flag) == flag;
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return pd;
    }

    @Override
    public MemorySegment segment()
    {
        return segment;
    }

    @Override
    public long address()
    {
        return address;
    }

    @Override
    public long length()
    {
        return length;
    }

    @Override
    public int lkey()
    {
        return key;
    }

    @Override
    public int rkey()
    {
        return key;
    }

    @Override
    public int access()
    {
        return access;
    }

    /**
     * Idempotent; refuses ({@code EBUSY}) while a memory window is bound over the region, as rxe refuses
     * {@code ibv_dereg_mr} then (with {@code EINVAL}): invalidate or deallocate the windows first.
     */
    @Override
    public void close()
    {
        if (!isClosed() && pd.hasWindowOver(this))
        {
            throw new VerbsException("ibv_dereg_mr", Errno.EBUSY, resourceName() + " has memory windows bound over it");
        }
        super.close();
    }

    @Override
    protected String resourceName()
    {
        return "memory region with key 0x" + Integer.toHexString(key);
    }

    /** Nothing native to free; the key goes from the table right after (see {@link #afterRelease}). */
    @Override
    protected int release()
    {
        return 0;
    }

    /** Leaves the protection domain's table: the key is refused from now on. */
    @Override
    protected void afterRelease()
    {
        pd.deregister(this);
    }

    @Override
    public String toString()
    {
        return "TcpMemoryRegion{addr=0x" + Long.toHexString(address) + ", length=" + length + ", key=0x" +
            Integer.toHexString(key) + ", access=" + AccessFlags.describe(access) + '}';
    }
}
