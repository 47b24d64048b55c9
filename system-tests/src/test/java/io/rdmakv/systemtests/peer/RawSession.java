package io.rdmakv.systemtests.peer;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ConnectionManager;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;

import javax.net.ssl.SSLContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A session opened by hand with the verbs API, as {@code peer/NodeSession} does, for a test that
 * plays a buggy or hostile client: HELLO over the bootstrap port (kept open: it is the lease), a queue
 * pair connected to the node's, and no rules about what it then sends or which memory it touches. It keeps
 * its lease as a client does, with a HEARTBEAT on the bootstrap connection every interval the node asked
 * for (a virtual thread of its own), until {@link #stopHeartbeats()}.
 *
 * <pre>
 * registered memory:      0 SEND buffer (one control message)
 *                      4096 SCRATCH     (RDMA WRITE source, READ target, atomic result; 4096 bytes unless
 *                                        the constructor asks for more)
 *         4096 + scratch     RECV buffers, RECVS of MAX_MESSAGE_LENGTH each
 * </pre>
 */
public final class RawSession implements AutoCloseable
{
    public static final int BUFFER = MessageHeaderDescriptor.MAX_MESSAGE_LENGTH;
    public static final int SEND = 0;
    public static final int SCRATCH = BUFFER;
    public static final int RECVS = 4;
    private static final long RECV_WR_ID = 1L << 40;
    private static final long WAIT_NANOS = Duration.ofSeconds(5).toNanos();

    private final Arena arena = Arena.ofShared();
    private final int scratchLength;
    private final long recv;
    private final MemorySegment mem;
    private final SendWorkRequests sends = SendWorkRequests.allocate(1, 1);
    private final ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(RECVS, 1);
    private final WorkCompletions completions = WorkCompletions.allocate(16);
    private final Deque<int[]> arrived = new ArrayDeque<>();
    private final Context context;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final MemoryRegion mr;
    private final QueuePair qp;
    private ConnectionManager.Connection cmConnection;
    private final Bootstrap bootstrap;
    private final HelloOkMessage hello;
    private final Thread heartbeats;
    private volatile boolean heartbeating = true;
    private long nextWrId = 1;

    /** A session with {@code scratchLength} bytes of scratch memory (a multiple of 4096). */
    public RawSession(final int port, final String token, final int scratchLength)
    {
        this(port, token, scratchLength, null);
    }

    /** As above, its bootstrap connection over TLS with {@code tls} (null: plaintext). */
    public RawSession(final int port, final String token, final int scratchLength, final SSLContext tls)
    {
        this(port, token, scratchLength, tls, HelloMessage.newWriterId());
    }

    /** A session of writer {@code writerId} (several sessions of one client name the same writer). */
    public RawSession(final int port, final long writerId)
    {
        this(port, "", SCRATCH, null, writerId);
    }

    private RawSession(final int port, final String token, final int scratchLength, final SSLContext tls,
        final long writerId)
    {
        if (scratchLength < BUFFER || scratchLength % BUFFER != 0)
        {
            throw new IllegalArgumentException("scratch of " + scratchLength + " bytes: a multiple of " + BUFFER);
        }
        this.scratchLength = scratchLength;
        recv = SCRATCH + (long)scratchLength;
        mem = arena.allocate(recv + (long)RECVS * BUFFER, 4096);
        context = Providers.open(LocalCluster.TRANSPORT, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(64);
        mr = pd.registerMemory(mem, AccessFlags.LOCAL_WRITE);
        qp = pd.createQueuePair(QueuePairConfig.of(cq, 16, RECVS));
        qp.modifyToInit(ConnectOptions.DEFAULT);
        for (int i = 0; i < RECVS; i++)
        {
            repost(i);
        }
        bootstrap = new Bootstrap(port, tls);
        final ControlMessage reply = bootstrap.write(ControlCodec.toBytes(new HelloMessage(1, writerId,
            token.getBytes(StandardCharsets.UTF_8), qp.localEndpoint()))).read();
        if (!(reply instanceof HelloOkMessage ok))
        {
            close();
            throw new AssertionError("the node answered HELLO with " + reply);
        }
        hello = ok;
        if (ok.cmTicket() != null)
        {
            // a node on --cm rdmacm: connect as a client does, with the session's ticket (the queue pair is in
            // INIT with its receives posted already, which rdma_cm takes as it is)
            cmConnection = context.connectionManager().connect(qp, ok.cmTicket().socketAddress(),
                ok.cmTicket().privateData(ok.sessionId()), ConnectOptions.DEFAULT,
                LocalCluster.CONNECT_TIMEOUT.toNanos(), initialized -> { });
        }
        else
        {
            qp.modifyToRtr(ok.serverEndpoint(), ConnectOptions.DEFAULT);
            qp.modifyToRts(ConnectOptions.DEFAULT);
        }
        heartbeats = Thread.ofVirtual().name("raw-session-heartbeats").start(this::heartbeat);
    }

    private void heartbeat()
    {
        final long intervalMs = Integer.toUnsignedLong(hello.heartbeatIntervalMs());
        long n = 0;
        while (heartbeating && intervalMs > 0)
        {
            try
            {
                Thread.sleep(intervalMs);
                if (heartbeating)
                {
                    bootstrap.write(ControlCodec.toBytes(new HeartbeatMessage(++n, 0)));
                }
            }
            catch (final InterruptedException | RuntimeException e)
            {
                return; // closed, or the node ended the session
            }
        }
    }

    /** Stops the heartbeats, the connection left open: a client frozen or cut off, as the node sees it. */
    public void stopHeartbeats()
    {
        heartbeating = false;
        heartbeats.interrupt();
    }

    public RawSession(final int port, final String token)
    {
        this(port, token, BUFFER);
    }

    public RawSession(final int port)
    {
        this(port, "");
    }

    public HelloOkMessage hello()
    {
        return hello;
    }

    /** The memory RDMA WRITEs send from and READs and atomics land in. */
    public MemorySegment scratch()
    {
        return mem.asSlice(SCRATCH, scratchLength);
    }

    private void repost(final int buffer)
    {
        receives.at(buffer).wrId(RECV_WR_ID + buffer).buffer(mr.address() + recv + (long)buffer * BUFFER, BUFFER,
            mr.lkey()).next(null);
        if (qp.postReceive(receives.at(buffer)) != 0)
        {
            throw new AssertionError("cannot post receive buffer " + buffer);
        }
    }

    /** SENDs {@code bytes} as they are (any length up to one buffer); returns the completion status. */
    public WcStatus send(final byte[] bytes)
    {
        MemorySegment.copy(bytes, 0, mem, ValueLayout.JAVA_BYTE, SEND, bytes.length);
        return post(sends.at(0).send(mr.address() + SEND, bytes.length, mr.lkey()));
    }

    /** SENDs a well-formed control message. */
    public WcStatus send(final ControlMessage message)
    {
        return send(ControlCodec.toBytes(message));
    }

    /** RDMA WRITE of the first {@code length} scratch bytes to {@code remoteAddress} with {@code rkey}. */
    public WcStatus write(final long remoteAddress, final int rkey, final int length)
    {
        return post(sends.at(0).rdmaWrite(mr.address() + SCRATCH, length, mr.lkey(), remoteAddress, rkey));
    }

    /** RDMA READ of {@code length} bytes at {@code remoteAddress} into scratch. */
    public WcStatus read(final long remoteAddress, final int rkey, final int length)
    {
        return post(sends.at(0).rdmaRead(mr.address() + SCRATCH, length, mr.lkey(), remoteAddress, rkey));
    }

    /** 8-byte compare-and-swap at {@code remoteAddress}; the original value lands in scratch. */
    public WcStatus compareAndSwap(final long remoteAddress, final int rkey, final long compare, final long swap)
    {
        return post(sends.at(0).compareAndSwap(mr.address() + SCRATCH, mr.lkey(), remoteAddress, rkey, compare, swap));
    }

    private WcStatus post(final SendWorkRequest wr)
    {
        final long wrId = nextWrId++;
        wr.wrId(wrId).sendFlags(SendFlags.SIGNALED).next(null);
        final int rc = qp.postSend(wr);
        if (rc != 0)
        {
            throw new AssertionError("post failed with errno " + rc);
        }
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() - deadline < 0)
        {
            final int n = cq.poll(completions);
            WcStatus result = null;
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = completions.at(i);
                if (wc.wrId() == wrId)
                {
                    result = wc.statusEnum();
                }
                else
                {
                    remember(wc);
                }
            }
            if (result != null)
            {
                return result;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion for work request " + wrId + " within 5 s");
    }

    private void remember(final WorkCompletion wc)
    {
        if (wc.isSuccess() && wc.opcode() == WcOpcode.RECV)
        {
            arrived.add(new int[] {(int)(wc.wrId() - RECV_WR_ID), wc.byteLen()});
        }
    }

    /** The next control message the node sends, decoded; null when none comes within {@code timeout}. */
    public ControlMessage receive(final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (arrived.isEmpty() && System.nanoTime() - deadline < 0)
        {
            final int n = cq.poll(completions);
            for (int i = 0; i < n; i++)
            {
                remember(completions.at(i));
            }
            if (n == 0)
            {
                Thread.onSpinWait();
            }
        }
        final int[] got = arrived.poll();
        if (got == null)
        {
            return null;
        }
        try
        {
            return ControlCodec.decode(mem, recv + (long)got[0] * BUFFER, got[1]);
        }
        finally
        {
            repost(got[0]);
        }
    }

    /** The next control message; fails when none comes within 5 s. */
    public ControlMessage receive()
    {
        final ControlMessage m = receive(Duration.ofNanos(WAIT_NANOS));
        if (m == null)
        {
            throw new AssertionError("the node sent no control message within 5 s");
        }
        return m;
    }

    @Override
    public void close()
    {
        if (heartbeats != null)
        {
            stopHeartbeats();
        }
        LocalCluster.closeAll(bootstrap);
        LocalCluster.closeAll(cmConnection);
        LocalCluster.closeAll(qp);
        LocalCluster.closeAll(cq);
        LocalCluster.closeAll(mr);
        LocalCluster.closeAll(pd);
        LocalCluster.closeAll(context);
        sends.close();
        receives.close();
        completions.close();
        if (arena.scope().isAlive())
        {
            arena.close();
        }
    }
}
