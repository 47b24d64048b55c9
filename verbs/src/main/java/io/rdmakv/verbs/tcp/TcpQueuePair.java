package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ReceiveWorkRequest;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An RC queue pair of the {@code tcp} provider. Two TCP connections carry it: the one it opens at RTR
 * (its requests, the peer's responses) and the one the peer opens (the peer's requests, served by
 * this queue pair's {@link TcpResponder} on the device's responder engine). It accepts the peer's connection only from the queue
 * pair its RTR names, proven by this queue pair's secret (see {@link #attachInbound}), as a NIC accepts
 * packets only from its destination QP.
 */
final class TcpQueuePair extends VerbsResource implements QueuePair
{
    private final TcpProtectionDomain pd;
    private final TcpContext context;
    private final TcpCompletionQueue sendCq;
    private final TcpCompletionQueue recvCq;
    private final int qpNum;
    private final int psn;
    private final long secret;
    private final TcpSendQueue sendQueue;
    private final TcpReceiveQueue receiveQueue;

    private volatile QpState state = QpState.RESET;
    private volatile int remoteAccess;
    private volatile ConnectOptions options = ConnectOptions.DEFAULT;
    private SocketChannel outbound;
    private int remoteQpNum;
    private SocketChannel inbound;
    private int inboundQpNum;
    private volatile TcpResponder responder;
    private boolean responderStarted;
    /**
     * The peer's requester connection ended while requests of ours were outstanding ({@link #peerGone}): the
     * queue pair goes to ERR when those complete from the outbound connection, not before.
     */
    private volatile boolean peerGoneWhileSending;
    /** This queue pair's outbound socket in its send completion queue's selector; guarded by that queue's wait. */
    private SelectionKey waitKey;

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
        this.secret = context.newSecret();
        this.sendQueue = new TcpSendQueue(this, pd, config.maxSendWr(), config.maxSendSge(), config.maxInlineData());
        this.receiveQueue = new TcpReceiveQueue(config.maxRecvWr(), config.maxRecvSge());
        sendCq.attach(this, true);
        recvCq.attach(this, false);
    }

    long secret()
    {
        return secret;
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

    /**
     * The key of the outbound connection in {@code selector} (made on first use, with no interest), or
     * null before RTR connected it or once it closed. Called by the send completion queue's waiter only.
     */
    SelectionKey waitKey(final Selector selector)
    {
        if (waitKey == null || waitKey.selector() != selector)
        {
            final SocketChannel channel;
            synchronized (this)
            {
                channel = outbound;
            }
            if (channel == null)
            {
                return null;
            }
            try
            {
                waitKey = channel.register(selector, 0);
            }
            catch (final IOException | RuntimeException e)
            {
                return null;
            }
        }
        return waitKey;
    }

    /** A send was posted: a waiter on the send completion queue must now watch for its response. */
    void sendPosted()
    {
        sendCq.wakeWaiter();
    }

    /** Send completions from index {@code n}; {@code readSocket} false: only from bytes already read. */
    int pollSendCompletions(final WorkCompletions completions, final int n, final boolean readSocket)
    {
        return sendQueue.poll(completions, n, readSocket);
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
        return QueuePairEndpoint.tcp(qpNum, psn, context.host(), context.port(), secret);
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
        final SocketChannel channel = TcpHandshake.connect(remote, qpNum, options.rnrRetry(),
            context.handshakeTimeoutMs());
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
            remoteQpNum = remote.qpNum();
            state = QpState.RTR;
            if (inbound != null && inboundQpNum != remoteQpNum)
            {
                // Held in INIT with the right secret but from another queue pair than RTR names: drop it.
                CloseHelper.quietClose(inbound);
                inbound = null;
                responder = null;
                context.countRejected();
            }
            startResponder();
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

    /**
     * Called by the device for a hello that carried this queue pair's secret: takes the connection if it
     * comes from the peer this queue pair expects, and returns the {@link TcpWire} handshake status. In RTR
     * and RTS the hello's source must be exactly the queue pair RTR named. In INIT (the peer's RTR ran
     * first, as a node's does before its client has the node's endpoint) the connection is held, unserved,
     * until RTR names the peer, and dropped then (and counted) if it came from another.
     */
    synchronized int attachInbound(final SocketChannel channel, final int sourceQpNum, final int requesterRnrRetry)
    {
        if (isClosed() || state == QpState.RESET ||
            ((state == QpState.RTR || state == QpState.RTS) && sourceQpNum != remoteQpNum))
        {
            return TcpWire.HANDSHAKE_REFUSED;
        }
        if (state == QpState.ERR || inbound != null)
        {
            return TcpWire.HANDSHAKE_QP_BUSY;
        }
        inbound = channel;
        inboundQpNum = sourceQpNum;
        responder = new TcpResponder(this, pd, channel, requesterRnrRetry);
        startResponder();
        return TcpWire.HANDSHAKE_OK;
    }

    /** Starts serving the peer's connection once there is one and RTR has named its peer. */
    private void startResponder()
    {
        if (responder != null && !responderStarted && (state == QpState.RTR || state == QpState.RTS))
        {
            responderStarted = true;
            context.engine().serve(responder);
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
        sendCq.wakeWaiter();
        wakeResponder();
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

    /**
     * The peer's requester vanished: like a NIC's retry timeout, the queue pair fails. RC has no wire signal
     * for a peer's queue pair failing, so while requests of ours are outstanding the requester learns it from
     * them, in the order the wire gave: a response (the Invalid Request NAK that failed the peer, say)
     * completes first, and the outbound connection's end completes the rest with {@code RETRY_EXC_ERR}; the
     * queue pair then goes to ERR ({@link #sendsSettled}). Failing it at once would let the receive queue's
     * flush overtake that response in a completion queue both share. (With two queues, the receive queue's
     * waiter may never poll the sends, so it fails at once: no order between two queues is promised.)
     */
    void peerGone()
    {
        if (isClosed())
        {
            return;
        }
        peerGoneWhileSending = true;
        if (sendCq != recvCq || !hasOutstandingSends())
        {
            enterError();
        }
        else
        {
            sendCq.wakeWaiter();
        }
    }

    /** The completer emptied the send queue: a {@link #peerGone} that waited for it fails the queue pair now. */
    void sendsSettled()
    {
        if (peerGoneWhileSending && !isClosed())
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
        }
        wakeResponder();
        return 0;
    }

    /** A SEND waiting for a receive (or for the queue pair's end) looks again. */
    private void wakeResponder()
    {
        final TcpResponder r = responder;
        if (r != null)
        {
            r.wake();
        }
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
     * Retires the responder (when this returns, the engine no longer touches this queue pair or its memory)
     * and leaves the send completion queue's poll list and the device's table of connectable queue pairs.
     */
    @Override
    protected void afterRelease()
    {
        final TcpResponder r = responder;
        if (r != null)
        {
            r.retire();
            r.wake();
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
