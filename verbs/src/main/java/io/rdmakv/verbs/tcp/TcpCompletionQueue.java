package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.VerbsResource;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.util.Arrays;

/**
 * A completion queue of the {@code tcp} provider. Send-queue completions are produced inside
 * {@link #poll} by the polling thread itself, from the responses waiting on each queue pair's socket:
 * no thread hand-off. Completions that the responder threads produce (receives, flushes) wait in an
 * inbox until polled.
 */
final class TcpCompletionQueue extends VerbsResource implements CompletionQueue
{
    private final TcpContext context;
    private final int capacity;
    private final BackoffIdleStrategy idle = new BackoffIdleStrategy(200, 20, 1_000, 100_000);
    private volatile TcpQueuePair[] senders = new TcpQueuePair[0];

    private final Object inboxLock = new Object();
    private volatile int inboxCount;
    private int inboxHead;
    private long[] inboxWrId;
    private int[] inboxStatus;
    private int[] inboxOpcode;
    private int[] inboxByteLen;
    private int[] inboxQpNum;

    TcpCompletionQueue(final TcpContext context, final int capacity)
    {
        super("ibv_destroy_cq", context);
        this.context = context;
        this.capacity = capacity;
        final int inbox = Math.max(16, Math.min(capacity, 4096));
        inboxWrId = new long[inbox];
        inboxStatus = new int[inbox];
        inboxOpcode = new int[inbox];
        inboxByteLen = new int[inbox];
        inboxQpNum = new int[inbox];
    }

    /** Registers a queue pair that uses this queue; one that sends is also polled for its send completions. */
    synchronized void attach(final TcpQueuePair qp, final boolean asSender)
    {
        ensureOpen("ibv_create_qp");
        adopt(qp);
        if (asSender)
        {
            final TcpQueuePair[] s = Arrays.copyOf(senders, senders.length + 1);
            s[s.length - 1] = qp;
            senders = s;
        }
    }

    /** A closing queue pair's send completions are no longer polled here. */
    synchronized void detachSender(final TcpQueuePair qp)
    {
        senders = Arrays.stream(senders).filter(q -> q != qp).toArray(TcpQueuePair[]::new);
    }

    /** Adds a completion produced off the polling thread (a receive, a flushed receive). */
    void push(final long wrId, final int status, final int opcode, final int byteLen, final int qpNum)
    {
        synchronized (inboxLock)
        {
            int n = inboxCount;
            if (n == inboxWrId.length)
            {
                grow();
            }
            final int i = (inboxHead + n) % inboxWrId.length;
            inboxWrId[i] = wrId;
            inboxStatus[i] = status;
            inboxOpcode[i] = opcode;
            inboxByteLen[i] = byteLen;
            inboxQpNum[i] = qpNum;
            inboxCount = n + 1;
        }
    }

    private void grow()
    {
        final int n = inboxWrId.length;
        final long[] wrId = new long[n * 2];
        final int[] status = new int[n * 2];
        final int[] opcode = new int[n * 2];
        final int[] byteLen = new int[n * 2];
        final int[] qpNum = new int[n * 2];
        for (int k = 0; k < n; k++)
        {
            final int i = (inboxHead + k) % n;
            wrId[k] = inboxWrId[i];
            status[k] = inboxStatus[i];
            opcode[k] = inboxOpcode[i];
            byteLen[k] = inboxByteLen[i];
            qpNum[k] = inboxQpNum[i];
        }
        inboxWrId = wrId;
        inboxStatus = status;
        inboxOpcode = opcode;
        inboxByteLen = byteLen;
        inboxQpNum = qpNum;
        inboxHead = 0;
    }

    private int drainInbox(final WorkCompletions completions, final int start)
    {
        int n = start;
        synchronized (inboxLock)
        {
            final int max = completions.capacity();
            while (inboxCount > 0 && n < max)
            {
                final int i = inboxHead;
                completions.at(n++).fill(inboxWrId[i], inboxStatus[i], inboxOpcode[i], inboxByteLen[i], inboxQpNum[i]);
                inboxHead = (i + 1) % inboxWrId.length;
                inboxCount--;
            }
        }
        return n;
    }

    @Override
    public Context context()
    {
        return context;
    }

    @Override
    public int capacity()
    {
        return capacity;
    }

    @Override
    public int poll(final WorkCompletions completions)
    {
        int n = 0;
        if (inboxCount > 0)
        {
            n = drainInbox(completions, 0);
        }
        final TcpQueuePair[] qps = senders;
        for (int i = 0; i < qps.length && n < completions.capacity(); i++)
        {
            final TcpQueuePair qp = qps[i];
            if (qp.hasOutstandingSends())
            {
                n = qp.pollSendCompletions(completions, n);
            }
        }
        return n;
    }

    @Override
    public int await(final WorkCompletions completions, final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        idle.reset();
        while (true)
        {
            final int n = poll(completions);
            if (n != 0 || System.nanoTime() - deadline >= 0)
            {
                return n;
            }
            idle.idle();
        }
    }

    @Override
    protected String resourceName()
    {
        return "completion queue";
    }

    @Override
    protected String openChildrenMessage()
    {
        return "completion queue still used by " + openChildren(TcpQueuePair.class) +
            " queue pair(s): close them first";
    }

    /** Nothing to free. */
    @Override
    protected int release()
    {
        return 0;
    }
}
