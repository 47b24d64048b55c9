package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsResource;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A completion queue of the {@code tcp} provider. Send-queue completions are produced inside
 * {@link #poll} by the polling thread itself, from the responses waiting on each queue pair's socket:
 * no thread hand-off. Completions that the responder engine produces (receives, flushes) wait in an
 * inbox until polled.
 *
 * <p>{@link #await} blocks as ibverbs' event mode does: it arms ({@link #waiting} set), polls again, and
 * only then sleeps in epoll (a NIO {@link Selector}) over the outbound sockets of the sending queue pairs
 * that have requests outstanding. What could complete while it sleeps wakes it: a response (epoll), a
 * completion pushed into the inbox, a send posted on one of its queue pairs ({@link Selector#wakeup}, only
 * while a waiter is armed). Both sides write their own volatile before they read the other's, so one of
 * them always sees the other: no lost wake-up. Concurrent {@code await} calls on one queue are serialised.
 */
final class TcpCompletionQueue extends VerbsResource implements CompletionQueue
{
    /** Selected keys need no handling: after any wake-up the waiter polls everything. */
    private static final Consumer<SelectionKey> IGNORE = key -> { };

    private final TcpContext context;
    private final int capacity;
    /** Serialises {@link #await} and guards the selector (opened by the first waiter, closed with the queue). */
    private final Object waitLock = new Object();
    private Selector selector;
    private volatile boolean waiting;
    /** Set by {@link #wakeup} until a waiter, armed ({@link #waiting} set), consumes it. */
    private volatile boolean wakePending;
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
        wakeWaiter();
    }

    /**
     * Wakes a waiter that sleeps in {@link #await} (called after a completion became pollable, or a send
     * was posted whose response it must watch for). Costs one volatile read when nobody waits.
     */
    void wakeWaiter()
    {
        if (waiting)
        {
            final Selector s = selector;
            if (s != null)
            {
                s.wakeup();
            }
        }
    }

    /**
     * Ends a concurrent {@link #await} or the next one (see {@link CompletionQueue#wakeup}): marks a wake-up
     * pending, which an armed waiter checks before it sleeps, and wakes its selector if one is armed. As with
     * the other wakers, each side writes its volatile before it reads the other's: no lost wake-up. Any
     * thread; allocates nothing.
     */
    @Override
    public void wakeup()
    {
        wakePending = true;
        wakeWaiter();
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
        return poll(completions, true);
    }

    /** Polls; with {@code readSockets} false only the inbox and bytes already read: no system call. */
    private int poll(final WorkCompletions completions, final boolean readSockets)
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
                n = qp.pollSendCompletions(completions, n, readSockets);
            }
        }
        return n;
    }

    /**
     * Arms, then completes from what is already here without reading a socket; only then sleeps in epoll,
     * and reads the sockets once it wakes. A response that arrived before the sleep makes epoll return at
     * once (level-triggered), so it is read once, by the poll after the select: a blocked round trip costs
     * one epoll_wait and one read, not a read that finds nothing before each. Callers that polled just
     * before (a lane's waiter) lose nothing by the missing first read.
     */
    @Override
    public int await(final WorkCompletions completions, final long timeoutNanos)
    {
        if (timeoutNanos <= 0)
        {
            return poll(completions, true);
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        synchronized (waitLock)
        {
            if (isClosed())
            {
                return -Errno.EINVAL;
            }
            final Selector s = selector();
            if (s == null)
            {
                return -Errno.ENOMEM;
            }
            waiting = true;
            try
            {
                watchOutstanding(s);
                int n = poll(completions, false);
                while (n == 0 && !isClosed())
                {
                    final long left = deadline - System.nanoTime();
                    if (left <= 0)
                    {
                        return 0;
                    }
                    if (wakePending)
                    {
                        wakePending = false;
                        return 0;
                    }
                    s.select(IGNORE, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
                    n = poll(completions, true);
                    if (n == 0)
                    {
                        // Sends posted while this waiter slept woke it (armed throughout): watch their responses too.
                        watchOutstanding(s);
                    }
                }
                return n != 0 ? n : -Errno.EINVAL;
            }
            catch (final IOException | RuntimeException e)
            {
                // The selector broke (closed under us by close()): report, as ibverbs does for a dead channel.
                return -Errno.EIO;
            }
            finally
            {
                waiting = false;
            }
        }
    }

    /** The selector, opened on the first wait (control path); null when the system has no selector left. */
    private Selector selector()
    {
        if (selector == null)
        {
            try
            {
                selector = Selector.open();
            }
            catch (final IOException e)
            {
                return null;
            }
        }
        return selector;
    }

    /**
     * Points the selector at the responses this queue expects: read interest on the outbound socket of each
     * sending queue pair with requests outstanding, none on the others (so a peer that closed an idle
     * connection, or sends bytes nobody asked for, cannot make the waiter spin). A queue pair's key is
     * made once, when the queue first waits for it; changing interest costs nothing until it changes.
     */
    private void watchOutstanding(final Selector s) throws IOException
    {
        final TcpQueuePair[] qps = senders;
        for (final TcpQueuePair qp : qps)
        {
            final SelectionKey key = qp.waitKey(s);
            if (key != null && key.isValid())
            {
                final int interest = qp.hasOutstandingSends() ? SelectionKey.OP_READ : 0;
                if (key.interestOps() != interest)
                {
                    key.interestOps(interest);
                }
            }
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

    /** Closes the waiters' selector, if one was opened (after the waiter, if any, has left). */
    @Override
    protected int release()
    {
        final Selector s = selector;
        if (s != null)
        {
            s.wakeup();
        }
        synchronized (waitLock)
        {
            CloseHelper.quietClose(selector);
            selector = null;
        }
        return 0;
    }
}
