package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.CloseHelper;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The client's end of one control session over the {@code tcp} provider, as bare as a test needs: SENDs
 * a message (or raw bytes) and polls for the node's replies, without a thread of its own.
 */
final class ControlPeer implements AutoCloseable
{
    private static final int BUFFER = MessageHeaderDescriptor.MAX_MESSAGE_LENGTH;
    private static final int RECEIVES = 4;
    private static final int SEND_BUFFER = RECEIVES;

    private final Arena arena = Arena.ofShared();
    private final Context context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
    private final ProtectionDomain pd = context.allocateProtectionDomain();
    private final CompletionQueue sendCq = context.createCompletionQueue(16);
    private final CompletionQueue recvCq = context.createCompletionQueue(16);
    private final MemoryRegion mr =
        pd.registerMemory(arena.allocate((long)BUFFER * (RECEIVES + 1), 4096), AccessFlags.LOCAL_WRITE);
    private final QueuePair qp = pd.createQueuePair(new QueuePairConfig(sendCq, recvCq, 16, RECEIVES, 1, 1, 64));
    private final SendWorkRequests sends = SendWorkRequests.allocate(1, 1);
    private final ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(RECEIVES, 1);
    private final WorkCompletions completions = WorkCompletions.allocate(1);

    ControlPeer()
    {
        qp.modifyToInit(ConnectOptions.DEFAULT);
    }

    QueuePairEndpoint endpoint()
    {
        return qp.localEndpoint();
    }

    /** Connects to the node's queue pair and posts every receive buffer. */
    void connect(final QueuePairEndpoint node)
    {
        for (int i = 0; i < RECEIVES; i++)
        {
            postReceive(i);
        }
        qp.modifyToRtr(node, ConnectOptions.DEFAULT);
        qp.modifyToRts(ConnectOptions.DEFAULT);
    }

    void send(final ControlMessage message)
    {
        send(ControlCodec.toBytes(message));
    }

    /** SENDs {@code bytes} as one message and waits for its completion, which must succeed. */
    void send(final byte[] bytes)
    {
        final MemorySegment buffer = mr.segment().asSlice((long)SEND_BUFFER * BUFFER, BUFFER);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, buffer, 0, bytes.length);
        sends.at(0).wrId(99).sendFlags(SendFlags.SIGNALED).send(buffer.address(), bytes.length, mr.lkey()).next(null);
        if (qp.postSend(sends.at(0)) != 0)
        {
            throw new IllegalStateException("SEND not posted");
        }
        if (sendCq.await(completions, TimeUnit.SECONDS.toNanos(10)) != 1 ||
            completions.at(0).statusEnum() != WcStatus.SUCCESS)
        {
            throw new IllegalStateException("SEND did not complete: " + completions.at(0));
        }
    }

    /**
     * An RDMA compare-and-swap at {@code remoteAddress} (the original value lands in the send buffer); waits
     * for its completion and returns its status, whatever it is (a fenced session's fails).
     */
    WcStatus compareAndSwap(final long remoteAddress, final int rkey, final long compare, final long swap)
    {
        final long local = mr.address() + (long)SEND_BUFFER * BUFFER;
        sends.at(0).wrId(98).sendFlags(SendFlags.SIGNALED).compareAndSwap(local, mr.lkey(), remoteAddress, rkey,
            compare, swap).next(null);
        if (qp.postSend(sends.at(0)) != 0)
        {
            return WcStatus.LOC_QP_OP_ERR;
        }
        if (sendCq.await(completions, TimeUnit.SECONDS.toNanos(10)) != 1)
        {
            throw new IllegalStateException("the CAS did not complete");
        }
        return completions.at(0).statusEnum();
    }

    /** A reply the node sent, or null when none has arrived yet; reposts its buffer. */
    ControlMessage poll()
    {
        if (recvCq.poll(completions) != 1)
        {
            return null;
        }
        final WorkCompletion wc = completions.at(0);
        if (wc.statusEnum() != WcStatus.SUCCESS)
        {
            throw new IllegalStateException("receive failed: " + wc);
        }
        final int buffer = (int)wc.wrId();
        final ControlMessage message = ControlCodec.decode(mr.segment(), (long)buffer * BUFFER, wc.byteLen());
        postReceive(buffer);
        return message;
    }

    private void postReceive(final int buffer)
    {
        receives.at(buffer).wrId(buffer).buffer(mr.address() + (long)buffer * BUFFER, BUFFER, mr.lkey()).next(null);
        if (qp.postReceive(receives.at(buffer)) != 0)
        {
            throw new IllegalStateException("RECV not posted");
        }
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(qp, mr, sendCq, recvCq, pd, context);
        sends.close();
        receives.close();
        completions.close();
        arena.close();
    }
}
