package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsPd;
import io.rdmakv.verbs.ibverbs.layout.IbvMr;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** A registered memory region ({@code struct ibv_mr *}); keys and bounds are read once at registration. */
public final class IbvMemoryRegion extends VerbsResource implements MemoryRegion
{
    private final IbvProtectionDomain pd;
    private final MemorySegment mr;
    private final MemorySegment segment;
    private final int access;
    private final long address;
    private final long length;
    private final int lkey;
    private final int rkey;

    IbvMemoryRegion(final IbvProtectionDomain pd, final MemorySegment mr, final MemorySegment segment, final int access)
    {
        super("ibv_dereg_mr", pd);
        this.pd = pd;
        this.mr = mr.reinterpret(IbvMr.SIZE);
        this.segment = segment;
        this.access = access;
        this.address = this.mr.get(JAVA_LONG, IbvMr.ADDR);
        this.length = this.mr.get(JAVA_LONG, IbvMr.LENGTH);
        this.lkey = this.mr.get(JAVA_INT, IbvMr.LKEY);
        this.rkey = this.mr.get(JAVA_INT, IbvMr.RKEY);
    }

    /** The native {@code struct ibv_mr *}: what a BIND_MW work request names. */
    MemorySegment nativeRegion()
    {
        return mr;
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
        return lkey;
    }

    @Override
    public int rkey()
    {
        return rkey;
    }

    @Override
    public int access()
    {
        return access;
    }

    @Override
    protected String resourceName()
    {
        return "memory region of " + length + " bytes at 0x" + Long.toHexString(address) + " (rkey 0x" +
            Integer.toHexString(rkey) + ")";
    }

    /** {@code ibv_dereg_mr}. */
    @Override
    protected int release()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final int rc = LibIbverbsPd.ibvDeregMr(state, mr);
            return rc == 0 ? 0 : CallState.errnoOf(rc, state);
        }
    }

    @Override
    public String toString()
    {
        return "IbvMemoryRegion{0x" + Long.toHexString(address) + "+" + length + ", lkey 0x" +
            Integer.toHexString(lkey) + ", rkey 0x" + Integer.toHexString(rkey) + "}";
    }
}
