package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ReceiveWorkRequest;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.VerbsException;
import io.rdmakv.verbs.VerbsResource;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An RC queue pair of the {@code tcp} provider. Two TCP connections carry it: the one it opens at RTR
 * (its requests, the peer's responses) and the one the peer opens (the peer's requests, served by
 * this queue pair's {@link TcpResponder} thread).
 */
final class TcpQueuePair extends VerbsResource implements QueuePair
{
    private static final int CONNECT_TIMEOUT_MS = 10_000;

    private final TcpProtectionDomain pd;
    private final TcpContext context;
    private final TcpCompletionQueue sendCq;
    private final TcpCompletionQueue recvCq;
    private final int qpNum;
    private final int psn;
    private final TcpSendQueue sendQueue;
    private final TcpReceiveQueue receiveQueue;

    private volatile QpState state = QpState.RESET;
    private volatile int remoteAccess;
    private volatile ConnectOptions options = ConnectOptions.DEFAULT;
    private SocketChannel outbound;
    private SocketChannel inbound;
    private TcpResponder responder;
    private Thread responderThread;

    TcpQueuePair(final TcpProtectionDomain pd, final QueuePairConfig config, final TcpCompletionQueue sendCq,
        final TcpCompletionQueue recvCq)
    {
        super("ibv_destroy_qp", pd, sendCq, recvCq);
        final int maxWr = TcpContext.ATTRIBUTES.maxQpWr();
        if (config.maxSendWr() > maxWr || config.maxRecvWr() > maxWr ||
            config.maxSendSge() > TcpContext.ATTRIBUTES.maxSge() || config.maxRecvSge() > TcpContext.ATTRIBUTES.maxSge() ||
            config.maxInlineData() > TcpContext.ATTRIBUTES.maxInlineData())
        {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, "queue pair capacities exceed the device's: " +
                config + " vs " + TcpContext.ATTRIBUTES);
        }
        this.pd = pd;
        this.context = (TcpContext)pd.context();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.qpNum = context.nextQpNum();
        this.psn = ThreadLocalRandom.current().nextInt(1 << 24);
        this.sendQueue = new TcpSendQueue(this, pd, config.maxSendWr(), config.maxSendSge(), config.maxInlineData());
        this.receiveQueue = new TcpReceiveQueue(config.maxRecvWr(), config.maxRecvSge());
        sendCq.attach(this, true);
        recvCq.attach(this, false);
    }

    TcpReceiveQueue receiveQueue()
    {
        return receiveQueue;
    }

    TcpCompletionQueue recvCq()
    {
        return recvCq;
    }

    ConnectOptions options()
    {
        return options;
    }

    boolean allowsRemote(final int access)
    {
        return (remoteAccess & access) == access;
    }

    boolean hasOutstandingSends()
    {
        return sendQueue.hasOutstanding();
    }

    int pollSendCompletions(final WorkCompletions completions, final int n)
    {
        return sendQueue.poll(completions, n);
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return pd;
    }

    @Override
    public int qpNum()
    {
        return qpNum;
    }

    @Override
    public QpState state()
    {
        return state;
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return QueuePairEndpoint.tcp(qpNum, psn, context.host(), context.port());
    }

    @Override
    public synchronized void modifyToInit(final ConnectOptions options)
    {
        expect("INIT", QpState.RESET);
        this.options = options;
        this.remoteAccess = options.accessFlags();
        state = QpState.INIT;
    }

    @Override
    public void modifyToRtr(final QueuePairEndpoint remote, final ConnectOptions options)
    {
        synchronized (this)
        {
            expect("RTR", QpState.INIT);
        }
        if (!"tcp".equals(remote.provider()))
        {
            throw new VerbsException("ibv_modify_qp(RTR)", Errno.EINVAL, "peer endpoint is " + remote.provider() +
                ", this queue pair is tcp");
        }
        final SocketChannel channel = TcpHandshake.connect(remote, qpNum, options.rnrRetry(), CONNECT_TIMEOUT_MS);
        synchronized (this)
        {
            if (state != QpState.INIT)
            {
                CloseHelper.quietClose(channel);
                throw new VerbsException("ibv_modify_qp(RTR)", Errno.EINVAL, "queue pair left INIT during connect: " +
                    state);
            }
            outbound = channel;
            sendQueue.connected(channel);
            this.options = options;
            state = QpState.RTR;
        }
    }

    @Override
    public synchronized void modifyToRts(final ConnectOptions options)
    {
        expect("RTS", QpState.RTR);
        state = QpState.RTS;
    }

    @Override
    public void modifyToError()
    {
        enterError();
    }

    private void expect(final String target, final QpState required)
    {
        ensureOpen("ibv_modify_qp(" + target + ")");
        if (state != required)
        {
            throw new VerbsException("ibv_modify_qp(" + target + ")", Errno.EINVAL, "queue pair " + qpNum + " is " +
                state + ", must be " + required);
        }
    }

    /** Called by the listener: the peer's requester connected. False if this queue pair cannot take it. */
    synchronized boolean attachResponder(final SocketChannel channel, final int requesterRnrRetry)
    {
        if (isClosed() || state == QpState.ERR || inbound != null)
        {
            return false;
        }
        try
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 * TcpWire.BUFFER_LENGTH);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 4 * TcpWire.BUFFER_LENGTH);
        }
        catch (final IOException e)
        {
            return false;
        }
        inbound = channel;
        responder = new TcpResponder(this, pd, channel, requesterRnrRetry);
        return true;
    }

    synchronized void startResponder()
    {
        if (responder != null && responderThread == null)
        {
            responderThread = Thread.ofPlatform().daemon().name("rdmakv-tcp-responder-qp" + qpNum).start(responder);
        }
    }

    /**
     * Moves the queue pair to ERR (idempotent): the inbound connection closes and the outbound one stops
     * sending, so the peer sees its requests fail; posted receives flush now, outstanding sends complete
     * or flush at the next poll.
     */
    void enterError()
    {
        synchronized (this)
        {
            if (state == QpState.ERR)
            {
                return;
            }
            state = QpState.ERR;
            CloseHelper.quietClose(inbound);
            shutdownOutput(outbound);
        }
        flushReceives();
    }

    /**
     * Stops sending (the peer's responder sees the end and fails its queue pair) but keeps reading, so
     * responses already on the wire still complete before the rest of the send queue flushes.
     */
    private static void shutdownOutput(final SocketChannel channel)
    {
        if (channel != null)
        {
            try
            {
                channel.shutdownOutput();
            }
            catch (final IOException | RuntimeException e)
            {
                CloseHelper.quietClose(channel);
            }
        }
    }

    /** The peer's requester vanished: like a NIC's retry timeout, the queue pair fails. */
    void peerGone()
    {
        if (!isClosed())
        {
            enterError();
        }
    }

    private void flushReceives()
    {
        synchronized (receiveQueue)
        {
            while (!receiveQueue.isEmpty())
            {
                final int slot = receiveQueue.peek();
                if (!isClosed())
                {
                    recvCq.push(receiveQueue.wrId(slot), WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, 0, qpNum);
                }
                receiveQueue.remove();
            }
            receiveQueue.notifyAll();
        }
    }

    @Override
    public int postSend(final SendWorkRequest wr)
    {
        return isClosed() ? Errno.EINVAL : sendQueue.post(wr);
    }

    @Override
    public int postReceive(final ReceiveWorkRequest first)
    {
        if (isClosed() || state == QpState.RESET)
        {
            return Errno.EINVAL;
        }
        ReceiveWorkRequest wr = first;
        synchronized (receiveQueue)
        {
            while (wr != null)
            {
                if (wr.numSge() > receiveQueue.maxSge())
                {
                    return Errno.EINVAL;
                }
                if (state == QpState.ERR)
                {
                    recvCq.push(wr.wrId(), WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, 0, qpNum);
                }
                else if (!receiveQueue.offer(wr))
                {
                    return Errno.ENOMEM;
                }
                final long next = wr.nextAddress();
                wr = next == 0 ? null : wr.owner().byAddress(next);
                if (next != 0 && wr == null)
                {
                    return Errno.EINVAL;
                }
            }
            receiveQueue.notifyAll();
        }
        return 0;
    }

    @Override
    protected String resourceName()
    {
        return "queue pair";
    }

    /** Closes both connections: the responder thread and the peer see the end. */
    @Override
    protected int release()
    {
        CloseHelper.quietClose(outbound);
        CloseHelper.quietClose(inbound);
        return 0;
    }

    /**
     * Wakes the responder if it waits for a receive, waits (up to a second) for it to end, and leaves the
     * send completion queue's poll list and the device's table of connectable queue pairs.
     */
    @Override
    protected void afterRelease()
    {
        final Thread thread;
        synchronized (this)
        {
            thread = responderThread;
        }
        synchronized (receiveQueue)
        {
            receiveQueue.notifyAll();
        }
        if (thread != null && thread != Thread.currentThread())
        {
            try
            {
                thread.join(1000);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        sendCq.detachSender(this);
        context.unregister(this);
    }

    @Override
    public String toString()
    {
        return "TcpQueuePair{qpn=" + qpNum + ", state=" + state + '}';
    }
}
