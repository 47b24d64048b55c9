package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One thread of a device's responder engine: serves every inbound connection assigned to it with one
 * selector (epoll), like a NIC's processing engine. After its last piece of work it spins for a short
 * while (requests of a busy peer come back within a round trip), then sleeps in epoll until a request
 * arrives, a new connection is assigned, a receive is posted for a waiting SEND, or the earliest timer is
 * due. Wakers call {@link #wake}, which costs a volatile read unless the loop sleeps.
 */
final class TcpEngineLoop implements AutoCloseable
{
    /** Longest sleep while connections wait on timers: a safety net, wake-ups come first. */
    private static final long MAX_TIMED_SLEEP_MS = 100;

    private final Selector selector;
    private final long spinNanos;
    private final Queue<TcpResponder> arrivals = new ConcurrentLinkedQueue<>();
    private final List<TcpResponder> timed = new ArrayList<>();
    private final Consumer<SelectionKey> serveKey = this::serveKey;
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean closed;
    private long now;

    TcpEngineLoop(final String name, final long spinNanos)
    {
        try
        {
            selector = Selector.open();
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("cannot open the tcp responder engine's selector: " + e.getMessage(), e);
        }
        this.spinNanos = spinNanos;
        thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    Selector selector()
    {
        return selector;
    }

    /** Assigns a connection to this loop (any thread). */
    void serve(final TcpResponder responder)
    {
        arrivals.offer(responder);
        selector.wakeup();
    }

    /** Wakes the loop if it sleeps (any thread). */
    void wake()
    {
        if (sleeping)
        {
            selector.wakeup();
        }
    }

    /** Puts a connection on the timer list (loop thread only); it leaves when it no longer waits. */
    void addTimed(final TcpResponder responder)
    {
        if (!timed.contains(responder))
        {
            timed.add(responder);
        }
    }

    private void run()
    {
        long lastWork = System.nanoTime();
        while (!closed)
        {
            try
            {
                now = System.nanoTime();
                int work = admit();
                work += selector.selectNow(serveKey);
                work += serveTimed();
                if (work > 0)
                {
                    lastWork = now;
                }
                else if (now - lastWork < spinNanos)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    sleep();
                    lastWork = System.nanoTime();
                }
            }
            catch (final IOException | RuntimeException e)
            {
                if (!closed)
                {
                    System.getLogger(TcpEngineLoop.class.getName()).log(System.Logger.Level.ERROR,
                        "tcp responder engine: " + e, e);
                }
            }
        }
    }

    private void sleep() throws IOException
    {
        sleeping = true;
        try
        {
            if (!arrivals.isEmpty() || closed)
            {
                return;
            }
            long timeoutMs = 0;
            if (!timed.isEmpty())
            {
                long earliest = Long.MAX_VALUE;
                for (int i = 0; i < timed.size(); i++)
                {
                    earliest = Math.min(earliest, timed.get(i).deadline());
                }
                final long left = earliest == Long.MAX_VALUE ? Long.MAX_VALUE : earliest - System.nanoTime();
                timeoutMs = Math.max(1, Math.min(MAX_TIMED_SLEEP_MS, TimeUnit.NANOSECONDS.toMillis(left) + 1));
                // A receive posted after the loop last looked would have found sleeping set: serve the timers once more.
                now = System.nanoTime();
                if (serveTimed() > 0)
                {
                    return;
                }
            }
            now = System.nanoTime();
            selector.select(serveKey, timeoutMs);
        }
        finally
        {
            sleeping = false;
        }
    }

    private int admit()
    {
        int work = 0;
        TcpResponder responder;
        while ((responder = arrivals.poll()) != null)
        {
            try
            {
                responder.attach(this);
                responder.serve(now);
            }
            catch (final IOException | RuntimeException e)
            {
               
                responder.retire();
            }
            work++;
        }
        return work;
    }

    private void serveKey(final SelectionKey key)
    {
        if (key.attachment() instanceof TcpResponder responder)
        {
            responder.serve(now);
        }
    }

    private int serveTimed()
    {
        int work = 0;
        for (int i = timed.size() - 1; i >= 0; i--)
        {
            final TcpResponder responder = timed.get(i);
            work += responder.serve(now);
            if (!responder.timed())
            {
                timed.set(i, timed.get(timed.size() - 1));
                timed.remove(timed.size() - 1);
            }
        }
        return work;
    }

    /** Stops the thread (waits up to a second) and closes the selector. */
    @Override
    public void close()
    {
        closed = true;
        selector.wakeup();
        if (thread != Thread.currentThread())
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
        CloseHelper.quietClose(selector);
    }
}
