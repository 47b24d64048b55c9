package io.rdmakv.client.internal;

import org.agrona.CloseHelper;
import io.rdmakv.common.protocol.AllocFailedMessage;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeBatch;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.HelloRefusedMessage;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One session with one node: the bootstrap connection (HELLO, then kept open: the server treats its
 * end as the session's lease), a connected queue pair with its registered buffers, the control calls
 * over SEND/RECV (ALLOC, FREE, STATS, BYE), and the {@link Lane} that runs the data path on it.
 */
public final class Session implements LaneControl, AutoCloseable
{
    private static final int SEND_QUEUE_DEPTH = 64;

    private final InetSocketAddress address;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem;
    private final MemoryRegion mr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final LaneCounters counters = new LaneCounters();
    private final LaneIo io;
    private final ClientSpace space = new ClientSpace(FreeMessage.MAX_ENTRIES);
    private final FreeBatch freeBatch = new FreeBatch();
    private final BootstrapConnection bootstrap;
    private final HelloOkMessage hello;
    private final Lane lane;
    private final long controlTimeoutNanos;
    private long nextRequestId = 1;
    private boolean shutdownNoticed;
    private boolean closed;

    private Session(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final byte[] authToken, final long connectTimeoutNanos, final long opTimeoutNanos)
    {
        this.address = address;
        this.controlTimeoutNanos = Math.max(opTimeoutNanos, TimeUnit.SECONDS.toNanos(5));
        mem = arena.allocate(LaneBuffers.LENGTH, 4096);
        MemoryRegion registered = null;
        CompletionQueue createdCq = null;
        QueuePair createdQp = null;
        BootstrapConnection connection = null;
        try
        {
            registered = pd.registerMemory(mem, AccessFlags.LOCAL_WRITE);
            createdCq = context.createCompletionQueue(SEND_QUEUE_DEPTH + LaneBuffers.RECV_BUFFERS);
            createdQp = pd.createQueuePair(new QueuePairConfig(createdCq, createdCq, SEND_QUEUE_DEPTH,
                LaneBuffers.RECV_BUFFERS, 1, 1, 64));
            createdQp.modifyToInit(ConnectOptions.DEFAULT);
            io = new LaneIo(createdQp, createdCq, registered, counters, opTimeoutNanos);
            io.postAllReceives();
            connection = BootstrapConnection.open(address, connectTimeoutNanos);
            final ControlMessage reply = connection.call(new HelloMessage(1, authToken, createdQp.localEndpoint()));
            if (reply instanceof HelloRefusedMessage refused)
            {
                throw new SessionRefusedException(address, refused.code(), refused.text());
            }
            if (!(reply instanceof HelloOkMessage ok))
            {
                throw new IOException("node " + address + " answered HELLO with " + reply.type());
            }
            hello = ok;
            createdQp.modifyToRtr(ok.serverEndpoint(), ConnectOptions.DEFAULT);
            createdQp.modifyToRts(ConnectOptions.DEFAULT);
        }
        catch (final IOException | RuntimeException e)
        {
            CloseHelper.quietClose(connection);
            CloseHelper.quietClose(createdQp);
            CloseHelper.quietClose(createdCq);
            CloseHelper.quietClose(registered);
            arena.close();
            if (e instanceof SessionRefusedException refused)
            {
                throw refused;
            }
            throw new SessionFailedException(address, e);
        }
        mr = registered;
        cq = createdCq;
        qp = createdQp;
        bootstrap = connection;
        final RemoteIndex remote = new RemoteIndex(hello.indexRegion().address(), hello.indexRegion().rkey(),
            hello.dataRegion().address(), hello.dataRegion().rkey(), hello.geometry());
        lane = new Lane(io, remote, mem, this, space, counters, hello.sessionId(), hello.graceNanos());
    }

    /** Opens a session, or throws {@link SessionRefusedException} / {@link SessionFailedException}. */
    public static Session open(final Context context, final ProtectionDomain pd, final InetSocketAddress address,
        final byte[] authToken, final long connectTimeoutNanos, final long opTimeoutNanos)
    {
        return new Session(context, pd, address, authToken, connectTimeoutNanos, opTimeoutNanos);
    }

    public Lane lane()
    {
        return lane;
    }

    public HelloOkMessage hello()
    {
        return hello;
    }

    public InetSocketAddress address()
    {
        return address;
    }

    public LaneCounters counters()
    {
        return counters;
    }

    /** What the lane was waiting for when it timed out, or empty. */
    public String timedOutWaitingFor()
    {
        return io.failedWaitingFor();
    }

    /** True when the node announced it is shutting down. */
    public boolean shutdownNoticed()
    {
        return shutdownNoticed;
    }

    /** True when the session can no longer be used (a failure broke it, or it was closed). */
    public boolean isBroken()
    {
        return closed || io.failure() != 0;
    }

    // ---- control calls ----------------------------------------------------------------------

    @Override
    public int allocate(final long minBytes)
    {
        // ALLOC names the least the lane needs; the node grants up to a chunk, or less when space is short.
        final ControlMessage reply = call(new AllocMessage(nextRequestId++, minBytes));
        if (reply == null)
        {
            return io.failure() != 0 ? io.failure() : Status.CONNECTION_LOST;
        }
        if (reply instanceof AllocOkMessage ok && ok.chunkLength() >= minBytes)
        {
            space.newExtent(ok.chunkOffset(), ok.chunkLength(), System.nanoTime());
            return Status.OK;
        }
        if (reply instanceof AllocFailedMessage)
        {
            return Status.OUT_OF_SPACE;
        }
        return Status.REMOTE_ERROR;
    }

    @Override
    public int flushFrees()
    {
        counters.droppedFrees += space.dropStale(System.nanoTime());
        while (space.freeCount() > 0)
        {
            freeBatch.wrap(mem, LaneBuffers.CONTROL_SEND).reset(nextRequestId++);
            int n = 0;
            while (n < space.freeCount() && freeBatch.add(space.freeOffsetAt(n), space.freeLengthAt(n)))
            {
                n++;
            }
            final int rc = send(freeBatch.length());
            if (rc != Status.OK)
            {
                return rc;
            }
            space.consumed(n);
        }
        return Status.OK;
    }

    /** STATS: the node's memory, index and client figures (control path; allocates). */
    public StatsOkMessage stats()
    {
        final ControlMessage reply = call(new StatsMessage(nextRequestId++));
        return reply instanceof StatsOkMessage ok ? ok : null;
    }

    private int send(final int length)
    {
        counters.controlMessages++;
        io.wr(0).sendFlags(0).send(io.localAddress(LaneBuffers.CONTROL_SEND), length, io.lkey());
        return io.ring(1);
    }

    /** Sends a request and waits for its reply; null when the lane broke or timed out. */
    private ControlMessage call(final ControlMessage request)
    {
        final int length = ControlCodec.encode(request, mem, LaneBuffers.CONTROL_SEND);
        if (send(length) != Status.OK)
        {
            return null;
        }
        while (true)
        {
            final int buffer = io.awaitReceive(controlTimeoutNanos);
            if (buffer < 0)
            {
                return null;
            }
            final ControlMessage reply;
            try
            {
                reply = ControlCodec.decode(mem, LaneBuffers.controlRecv(buffer), io.lastReceiveLength());
            }
            finally
            {
                io.repostReceive(buffer);
            }
            if (reply instanceof ShutdownMessage)
            {
                shutdownNoticed = true;
                continue;
            }
            if (reply.requestId() == request.requestId())
            {
                return reply;
            }
        }
    }

    /** Looks for notices the node sent (SHUTDOWN) without waiting. */
    public void pollNotices()
    {
        while (io.receivePending())
        {
            final int buffer = io.awaitReceive(0);
            if (buffer < 0)
            {
                return;
            }
            try
            {
                if (ControlCodec.decode(mem, LaneBuffers.controlRecv(buffer), io.lastReceiveLength())
                    instanceof ShutdownMessage)
                {
                    shutdownNoticed = true;
                }
            }
            catch (final RuntimeException e)
            {
                // a malformed notice is ignored: it asks nothing of us
            }
            finally
            {
                io.repostReceive(buffer);
            }
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        if (io.failure() == 0)
        {
            flushFrees();
            final int length = ControlCodec.encode(new ByeMessage(nextRequestId++), mem, LaneBuffers.CONTROL_SEND);
            send(length);
        }
        closed = true;
        CloseHelper.quietClose(bootstrap);
        CloseHelper.quietClose(qp);
        CloseHelper.quietClose(cq);
        CloseHelper.quietClose(mr);
        CloseHelper.quietClose(io);
        arena.close();
    }
}
