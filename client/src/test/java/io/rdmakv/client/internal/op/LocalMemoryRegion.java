package io.rdmakv.client.internal.op;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.foreign.MemorySegment;

/** A lane's local memory as a "registered" region for the {@link ScriptedNic}: its native address and an lkey. */
final class LocalMemoryRegion implements MemoryRegion
{
    private final MemorySegment segment;
    private final int lkey;

    LocalMemoryRegion(final MemorySegment segment, final int lkey)
    {
        this.segment = segment;
        this.lkey = lkey;
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return null;
    }

    @Override
    public MemorySegment segment()
    {
        return segment;
    }

    @Override
    public long address()
    {
        return segment.address();
    }

    @Override
    public long length()
    {
        return segment.byteSize();
    }

    @Override
    public int lkey()
    {
        return lkey;
    }

    @Override
    public int rkey()
    {
        return lkey;
    }

    @Override
    public int access()
    {
        return AccessFlags.LOCAL_WRITE;
    }

    @Override
    public void close()
    {
    }
}
