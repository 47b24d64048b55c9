package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.WcOpcode;

import java.lang.foreign.MemorySegment;

import static io.rdmakv.verbs.AccessFlags.LOCAL_WRITE;
import static io.rdmakv.verbs.AccessFlags.MW_BIND;
import static io.rdmakv.verbs.AccessFlags.REMOTE_READ;

/**
 * Two connected pairs over one server protection domain: the data region (sentinel-filled), windows
 * A and B allocated unbound, and a client source buffer with a pattern.
 */
final class WindowFixture implements AutoCloseable
{
    /** The data region: 8 KiB of sentinel bytes; window A covers [1 KiB, 2 KiB), window B [4 KiB, 5 KiB). */
    static final long REGION = 8192;
    static final long A_OFFSET = 1024;
    static final long B_OFFSET = 4096;
    static final long WINDOW = 1024;
    static final byte SENTINEL = 0x5a;
    /** Readable by all through the region's rkey, writable only through windows. */
    static final int DATA_ACCESS = LOCAL_WRITE | REMOTE_READ | MW_BIND;

    final VerbsFixture fx;
    final VerbsFixture.Link linkA;
    final VerbsFixture.Link linkB;
    final MemoryRegion data;
    final MemoryRegion local;
    final MemorySegment source;
    final MemoryWindow a;
    final MemoryWindow b;
    final SendWorkRequests requests;

    WindowFixture(final String provider)
    {
        fx = VerbsFixture.open(provider);
        try
        {
            KnownDeviations.requireMemoryWindows(fx);
            linkA = fx.connectedPair();
            linkB = fx.connectedPair();
            data = fx.register(fx.server(), REGION, DATA_ACCESS);
            data.segment().fill(SENTINEL);
            local = fx.register(fx.client(), WINDOW, LOCAL_WRITE);
            source = Memory.pattern(local.segment(), 7);
            a = fx.track(fx.server().pd().allocMemoryWindow());
            b = fx.track(fx.server().pd().allocMemoryWindow());
            requests = fx.sendRequests(1);
        }
        catch (final RuntimeException | Error e)
        {
            fx.close();
            throw e;
        }
    }

    /** Binds {@code mw} on {@code qp} with the next tag, waits for success; returns the new rkey. */
    int bind(final QueuePair qp, final MemoryWindow mw, final long addr, final long length, final int access)
    {
        final int rkey = MemoryWindow.nextRkey(mw.rkey());
        VerbsFixture.postSend(qp, requests.at(0)
            .bindMemoryWindow(mw, rkey, data, addr, length, access).wrId(2).sendFlags(SendFlags.SIGNALED));
        fx.awaitOne(fx.server().cq()).assertSuccess(2, WcOpcode.BIND_MW, qp.qpNum());
        return rkey;
    }

    Completion invalidate(final QueuePair qp, final int rkey)
    {
        VerbsFixture.postSend(qp, requests.at(0).localInvalidate(rkey).wrId(2).sendFlags(SendFlags.SIGNALED));
        return fx.awaitOne(fx.server().cq());
    }

    /** WRITE of the first {@code length} source bytes at {@code offset} of the data region, waited for. */
    Completion write(final QueuePair qp, final long offset, final int length, final int rkey)
    {
        VerbsFixture.postSend(qp, requests.at(0).rdmaWrite(local.address(), length, local.lkey(),
            data.address() + offset, rkey).wrId(1).sendFlags(SendFlags.SIGNALED));
        return fx.awaitOne(fx.client().cq());
    }

    Completion read(final QueuePair qp, final long offset, final int length, final int rkey)
    {
        VerbsFixture.postSend(qp, requests.at(0).rdmaRead(local.address() + WINDOW - length, length, local.lkey(),
            data.address() + offset, rkey).wrId(1).sendFlags(SendFlags.SIGNALED));
        return fx.awaitOne(fx.client().cq());
    }

    MemorySegment remote(final long offset, final long length)
    {
        return data.segment().asSlice(offset, length);
    }

    @Override
    public void close()
    {
        fx.close();
    }
}
