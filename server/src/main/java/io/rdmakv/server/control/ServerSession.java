package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendWorkRequests;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.util.ArrayDeque;

/**
 * The server's side of one client session: its queue pair, control buffers, the bootstrap socket that
 * is its lease. What space it holds, the allocator knows (the session id is the owner). Owned by the control agent once registered.
 *
 * <pre>
 * buffers: [RECV 0] .. [RECV n-1] [SEND reply] [SEND notice], each MAX_MESSAGE_LENGTH bytes
 * </pre>
 */
public final class ServerSession implements AutoCloseable
{
    public static final int RECV_BUFFERS = 8;
    static final int REPLY_BUFFER = RECV_BUFFERS;
    static final int NOTICE_BUFFER = RECV_BUFFERS + 1;

    private final long id;
    private final long writerId;
    private final String peer;
    private final int bufferLength;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffers;
    private final MemoryRegion mr;
    private final ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(RECV_BUFFERS, 1);
    /** Reply, notice, and the BIND_MW of the session's write window (see {@link GrantWindows}). */
    private final SendWorkRequests sends = SendWorkRequests.allocate(3, 1);
    private static final int BIND_REQUEST = 2;
    private static final int BIND_WR_ID = 2000;
    private MemoryWindow window;
    private MemoryRegion windowRegion;
    private QueuePair qp;
    private AutoCloseable cmConnection;
    private Socket bootstrap;
    private volatile boolean departed;
    /** Why and when (wall clock) it departed, or closed, first: for the messages of what comes after (null: it has not). */
    private volatile String endedBecause;
    private volatile long endedAtMillis;
    /** Requests waiting to be served, in the order they arrived (agent thread only). */
    final ArrayDeque<Pending> inbox = new ArrayDeque<>();
    /** Why it departed, until its departure is finished (its last FREEs served, its space reclaimed). */
    String departure;
    /** The sessions it departed together with (agent thread only), see {@link Departures}. */
    Departures.Batch batch;
    /** On a replicated group's primary: its latest grant's extent and secret (0: none, or revoked). */
    long grantOffset;
    long grantLength;
    long grantSecret;
    /** On a primary: a grant secret whose revocation on the replicas was not confirmed yet (0: none). */
    long unrevokedSecret;
    /** On a primary: an ALLOC waits for its previous grant's revocation. */
    boolean allocating;
    /** On a backup or copying node: a BIND_WINDOW is being checked with the primary (one at a time). */
    boolean binding;
    /** A REBALANCE (move request or drain) of this session is with the rebalance desk (one at a time). */
    boolean rebalancing;
    /** On a backup or copying node: the primary's session and grant secret its window was bound for (0: none). */
    long boundSession;
    long boundSecret;
    /** The epoch of the cluster map it was opened under (told to it in HELLO_OK). */
    private volatile long epoch;
    /** The oldest epoch its client's heartbeats say an operation of it may still run under (-1: none yet). */
    private volatile long reportedEpoch = -1;

    /**
     * Session {@code id} of writer {@code writerId} (its HELLO's: the same in every session that client opens, on
     * every node), from {@code peer}.
     */
    public ServerSession(final long id, final long writerId, final String peer, final ProtectionDomain pd,
        final int bufferLength)
    {
        this.id = id;
        this.writerId = writerId;
        this.peer = peer;
        this.bufferLength = bufferLength;
        buffers = arena.allocate((long)bufferLength * (RECV_BUFFERS + 2), 4096);
        mr = pd.registerMemory(buffers, AccessFlags.LOCAL_WRITE);
    }

    public long id()
    {
        return id;
    }

    /** The client it belongs to, as its HELLO named it ({@code HelloMessage#writerId}). */
    public long writerId()
    {
        return writerId;
    }

    public String peer()
    {
        return peer;
    }

    public void attach(final QueuePair qp, final Socket bootstrap)
    {
        this.qp = qp;
        this.bootstrap = bootstrap;
    }

    /**
     * What connects the queue pair through rdma_cm (the node's side of it), closed before the queue pair when the
     * session closes; none for a queue pair connected by exchange.
     */
    public void attachConnection(final AutoCloseable connection)
    {
        this.cmConnection = connection;
    }

    /** Records the epoch of the cluster map the session was opened under; before {@link ControlAgent#register}. */
    public void openedUnder(final long mapEpoch)
    {
        epoch = mapEpoch;
    }

    /** The epoch of the cluster map the session was opened under. */
    public long epoch()
    {
        return epoch;
    }

    /**
     * Records what the client's last HEARTBEAT said: the oldest map epoch under which an operation of it may still
     * be running on this node (its lease reader's thread). Whatever it says concerns this session alone.
     */
    public void reported(final long oldestEpoch)
    {
        reportedEpoch = oldestEpoch;
    }

    /** What the client's last HEARTBEAT said ({@link #reported}), or -1 before its first. */
    public long reportedEpoch()
    {
        return reportedEpoch;
    }

    /**
     * The oldest map epoch an operation of its client may still run under: what its heartbeats last reported, or the
     * epoch it was opened under before the first.
     */
    public long oldestEpoch()
    {
        final long reported = reportedEpoch;
        return reported >= 0 ? reported : epoch;
    }

    public QueuePair qp()
    {
        return qp;
    }

    MemorySegment buffers()
    {
        return buffers;
    }

    long bufferOffset(final int buffer)
    {
        return (long)buffer * bufferLength;
    }

    /** Posts receive buffer {@code buffer}; false when the queue pair refuses it. */
    public boolean postReceive(final int buffer)
    {
        receives.at(buffer).wrId(SessionWrId.of(id, buffer)).buffer(mr.address() + bufferOffset(buffer), bufferLength, mr.lkey()).next(null);
        return qp.postReceive(receives.at(buffer)) == 0;
    }

    /** Sends {@code length} bytes from send buffer {@code buffer} (signaled, so a failure shows). */
    boolean send(final int buffer, final int length)
    {
        sends.at(buffer - REPLY_BUFFER).wrId(SessionWrId.of(id, 1000 + buffer)).sendFlags(io.rdmakv.verbs.SendFlags.SIGNALED)
            .send(mr.address() + bufferOffset(buffer), length, mr.lkey()).next(null);
        return qp.postSend(sends.at(buffer - REPLY_BUFFER)) == 0;
    }

    /**
     * Posts a bind of {@code mw} over {@code [addr, addr + length)} of {@code mr} with {@code access}, under
     * {@code rkey}, on this session's queue pair (unsignaled: a failure still completes, with an error).
     * False when the queue pair refuses it.
     */
    boolean postBind(final MemoryWindow mw, final int rkey, final MemoryRegion mr, final long addr, final long length,
        final int access)
    {
        sends.at(BIND_REQUEST).wrId(SessionWrId.of(id, BIND_WR_ID)).sendFlags(0).bindMemoryWindow(mw, rkey, mr, addr, length, access)
            .next(null);
        return qp.postSend(sends.at(BIND_REQUEST)) == 0;
    }

    /** The window the session writes its latest grant through, or null (agent thread only). */
    MemoryWindow window()
    {
        return window;
    }

    /** The session now writes its latest grant through {@code window}, bound over {@code region}. */
    void window(final MemoryWindow window, final MemoryRegion region)
    {
        this.window = window;
        this.windowRegion = region;
    }

    /** Deallocates the session's window, then deregisters the region it was bound over. Idempotent. */
    void closeWindow()
    {
        CloseHelper.quietClose(window);
        CloseHelper.quietClose(windowRegion);
        window = null;
        windowRegion = null;
    }

    public boolean departed()
    {
        return departed;
    }

    void markDeparted(final String why)
    {
        ended(why);
        departed = true;
    }

    private void ended(final String why)
    {
        if (endedBecause == null)
        {
            endedAtMillis = System.currentTimeMillis();
            endedBecause = why;
        }
    }

    /** When and why the session ended (departed, or closed), for messages; "" while it has not. */
    public String ended()
    {
        final String why = endedBecause;
        return why == null ? "" : "ended " + java.time.Instant.ofEpochMilli(endedAtMillis) + " because " + why;
    }

    /** Its rdma_cm connection's history (events and steps, with times), for messages; "" without one. */
    public String connectionHistory()
    {
        return cmConnection instanceof io.rdmakv.verbs.ConnectionManager.Connection c ? c.history() : "";
    }

    @Override
    public void close()
    {
        ended("it was closed");
        departed = true;
        CloseHelper.quietClose(bootstrap);
        CloseHelper.quietClose(cmConnection); // before its queue pair (rdma_disconnect: the client sees DISCONNECTED)
        CloseHelper.quietClose(qp);
        closeWindow();
        CloseHelper.quietClose(mr);
        receives.close();
        sends.close();
        arena.close();
    }

    @Override
    public String toString()
    {
        return "session " + id + " (" + peer + ")";
    }

    /** Sends a notice (SHUTDOWN) from the notice buffer, without waiting; false when it could not be posted. */
    boolean notice(final ControlMessage message)
    {
        return send(NOTICE_BUFFER, ControlCodec.encode(message, buffers(), bufferOffset(NOTICE_BUFFER)));
    }
}
