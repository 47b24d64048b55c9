package io.rdmakv.verbs.tcp;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * The responder half of a {@code tcp} queue pair: the software NIC's per-connection state, served by the
 * device's {@link TcpEngineLoop engine} thread, never the application's. Executes READ, WRITE, atomics and
 * SEND against the protection domain's registered memory in arrival order ({@link TcpRequestMachine}),
 * enforcing keys, bounds, access flags and alignment as a NIC does ({@link TcpRemoteAccess}).
 *
 * <p>It never blocks its engine: reads and writes are non-blocking, a request that arrives in pieces
 * resumes where it stopped, responses collect in a bounded output buffer and go out when the input runs
 * dry or the buffer fills ({@link TcpResponderSocket}). A peer that does not read its responses fills that
 * buffer, and then is not read from (backpressure) while every other connection keeps being served. A
 * SEND that finds no posted receive waits (receiver not ready) with its deadline on the engine's timer
 * list, woken by the next {@code postReceive}.
 *
 * <p>All of it runs under this object's lock, which {@link #retire} also takes: once a closing queue pair
 * has retired its responder, the engine never touches the queue pair's memory again.
 */
final class TcpResponder
{
    private final TcpQueuePair qp;
    private final TcpResponderSocket socket;
    private final TcpRequestMachine requests;
    private volatile TcpEngineLoop loop;
    private SelectionKey key;
    private boolean retired;

    TcpResponder(final TcpQueuePair qp, final TcpProtectionDomain pd, final SocketChannel channel,
        final int requesterRnrRetry)
    {
        this.qp = qp;
        this.socket = new TcpResponderSocket(channel);
        this.requests = new TcpRequestMachine(this, qp, pd, socket, requesterRnrRetry);
    }

    /** Called once, on the engine thread: the connection joins the engine's selector. */
    synchronized void attach(final TcpEngineLoop engine) throws IOException
    {
        loop = engine;
        if (retired)
        {
            return;
        }
        key = socket.register(engine.selector(), this);
    }

    /** The queue pair closed: the engine lets go of this connection (and never touches its memory again). */
    synchronized void retire()
    {
        retired = true;
        requests.stop();
        if (key != null)
        {
            key.cancel();
        }
    }

    /** A receive was posted or the queue pair changed state: a SEND waiting for a receive looks again. */
    void wake()
    {
        final TcpEngineLoop engine = loop;
        if (engine != null)
        {
            engine.wake();
        }
    }

    /** True while this connection waits on the engine's timer list (a receive, or an error response's drain). */
    synchronized boolean timed()
    {
        return requests.timed();
    }

    /** Nanosecond deadline of a timed wait; {@link Long#MAX_VALUE} when it waits for ever. */
    synchronized long deadline()
    {
        return requests.deadline();
    }

    /**
     * Does all the work the connection allows now: executes the requests that arrived, sends what fits,
     * and sets the selector interest (read while there is room for responses, write while some wait).
     * Returns the number of steps taken (0: nothing to do). Never blocks.
     */
    synchronized int serve(final long now)
    {
        if (requests.done() || retired)
        {
            return 0;
        }
        int work = 0;
        socket.beginServe();
        try
        {
            while (!requests.done() && requests.step(now))
            {
                work++;
            }
            if (!requests.done())
            {
                socket.flush();
                socket.interest(key, requests.wantsInput(), requests.producing());
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // The requester went away or the queue pair was closed under us: a NIC would time out.
            finish();
            qp.peerGone();
        }
        return work;
    }

    /** Puts this connection on the engine's timer list (engine thread, while it serves). */
    void addTimed()
    {
        loop.addTimed(this);
    }

    /** Ends the connection's service: no request is taken again, the engine lets go of the socket. */
    void finish()
    {
        requests.stop();
        if (key != null)
        {
            key.cancel();
        }
    }
}
