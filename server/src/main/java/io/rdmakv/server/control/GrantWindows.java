package io.rdmakv.server.control;

import io.rdmakv.server.space.Extent;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.resource.VerbsException;

/**
 * Write access per session: each grant (ALLOC) becomes writable to its session only, through a type-2
 * memory window bound on the session's queue pair over exactly the granted extent, with REMOTE_WRITE; the
 * data area itself is registered remotely readable by all and writable by none ({@link #DATA_AREA_ACCESS}).
 * Agent thread only.
 *
 * <p><b>One window per session.</b> A client carves new blocks only from its latest extent and finishes
 * every operation before it asks for the next one (see {@code FreeJob}), so only the latest grant needs to
 * be writable: when a session is granted a new extent, the window over its previous one is deallocated
 * ({@code ibv_dealloc_mw}, synchronous: once it returns, no WRITE through it lands) after the new one is
 * bound. A session thus holds at most {@value #MAX_PER_SESSION} windows, and that only inside an ALLOC;
 * where the device has no window left, the ALLOC is refused (OUT_OF_MEMORY, the text says why) and the
 * session keeps its current extent and window. Each window is bound over a memory region registered over
 * exactly its grant (see {@link #bind}). A session's window is deallocated when it is fenced
 * (departure: BYE, closed bootstrap connection, expired lease, failed queue pair; {@link #revoke}).
 *
 * <p><b>Freed space.</b> Space stays inside the latest grant while its window lives: a FREE of a block in
 * its own session's latest extent is deferred like one of another session's (see {@code FreeJob}) until the
 * session has moved on to another extent (its window gone) or departed (window gone, then the reclaim
 * scan). So no byte another session may be granted is writable through an older session's window.
 *
 * <p><b>Bind before reply.</b> The BIND_MW is posted on the session's queue pair before the SEND of the
 * ALLOC_OK that names the window's rkey, and the client learns that rkey only from the ALLOC_OK. A send
 * queue executes its work requests in order, and a bind's effect is part of its execution, a local
 * operation with no wire traffic (rxe binds in the requester when it reaches the bind, before it goes on to
 * the SEND behind it; the tcp provider binds in posting order), so the ALLOC_OK cannot leave before the
 * window grants access under its rkey, and the client cannot write the extent through it any earlier.
 * Waiting for the bind's completion first would add a completion round on the agent's thread for nothing.
 * A client that guesses the rkey and writes early gets a remote access error, as for any bad rkey. A bind
 * that fails shows as a failed completion, which fences the session like any failed queue pair.
 */
public final class GrantWindows
{
    private static final System.Logger LOG = System.getLogger(GrantWindows.class.getName());

    /** Windows one session may hold: the one over its latest grant, and the next while an ALLOC binds it. */
    public static final int MAX_PER_SESSION = 2;

    /** The data area's access with windows: remotely readable by all, writable through windows only. */
    public static final int DATA_AREA_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.MW_BIND;

    /**
     * The access of the memory region registered over each grant for its window to be bound over: none
     * remote by itself (its rkey grants nothing), LOCAL_WRITE because a window granting REMOTE_WRITE needs it.
     */
    public static final int GRANT_REGION_ACCESS = AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND;

    /** The data area's access without windows: every session reads and writes it with its rkey. */
    public static final int DATA_AREA_ACCESS_NO_WINDOWS =
        AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;

    private final ProtectionDomain pd;
    private final MemoryRegion dataArea;
    private final boolean enabled;
    private final int dataRkey;
    private final ServerCounters counters;
    private long bound;

    /**
     * @param dataArea the data area's memory region, registered with {@link #DATA_AREA_ACCESS} when
     *                 {@code enabled}, else with {@link #DATA_AREA_ACCESS_NO_WINDOWS}
     */
    public GrantWindows(final ProtectionDomain pd, final MemoryRegion dataArea, final boolean enabled,
        final ServerCounters counters)
    {
        this.pd = pd;
        this.dataArea = dataArea;
        this.enabled = enabled;
        this.dataRkey = dataArea.rkey();
        this.counters = counters;
        counters.set(ServerCounter.MEMORY_WINDOWS_ENABLED, enabled ? 1 : 0);
    }

    /** No windows: every grant is written with {@code dataRkey}, the data area's own rkey. */
    public GrantWindows(final int dataRkey, final ServerCounters counters)
    {
        this.pd = null;
        this.dataArea = null;
        this.enabled = false;
        this.dataRkey = dataRkey;
        this.counters = counters;
        counters.set(ServerCounter.MEMORY_WINDOWS_ENABLED, 0);
    }

    /** Whether grants are written through windows (else through the data area's own rkey). */
    public boolean enabled()
    {
        return enabled;
    }

    /**
     * A window for a session's next grant, allocated before the grant so that a device out of windows
     * refuses the ALLOC without granting; null without windows.
     *
     * @throws VerbsException when the device allocates no window (the ALLOC is refused with its message)
     */
    MemoryWindow reserve()
    {
        if (!enabled)
        {
            return null;
        }
        try
        {
            return pd.allocMemoryWindow();
        }
        catch (final VerbsException e)
        {
            counters.increment(ServerCounter.MEMORY_WINDOW_FAILURES);
            throw e;
        }
    }

    /** The rkey the grant made with {@code window} (from {@link #reserve}) is written with. */
    int writeRkey(final MemoryWindow window)
    {
        return window == null ? dataRkey : MemoryWindow.nextRkey(window.rkey());
    }

    /**
     * Binds {@code window} over {@code extent} on {@code session}'s queue pair with the rkey {@link #writeRkey}
     * named, then deallocates the session's previous window. The window is bound over a memory region of
     * its own covering exactly the extent ({@link #GRANT_REGION_ACCESS}: no remote access by itself), not
     * over the data area's: Soft-RoCE checks a window's accesses against the range of the region it is
     * bound over, not against the window's own (see the README), and real devices check both. False when
     * the region cannot be registered or the queue pair refused the bind (then nothing is left behind and
     * the caller fences the session). Nothing to do without windows.
     */
    boolean bind(final ServerSession session, final MemoryWindow window, final Extent extent)
    {
        if (window == null)
        {
            return true;
        }
        MemoryRegion grant = null;
        try
        {
            grant = pd.registerMemory(dataArea.segment().asSlice(extent.offset(), extent.length()),
                GRANT_REGION_ACCESS);
        }
        catch (final VerbsException e)
        {
            LOG.log(System.Logger.Level.WARNING, session + ": cannot register its grant for a window: " +
                e.getMessage());
        }
        if (grant == null || !session.postBind(window, writeRkey(window), grant, grant.address(), extent.length(),
            AccessFlags.REMOTE_WRITE))
        {
            counters.increment(ServerCounter.MEMORY_WINDOW_FAILURES);
            window.close();
            if (grant != null)
            {
                grant.close();
            }
            return false;
        }
        final boolean hadOne = session.window() != null;
        session.closeWindow();
        session.window(window, grant);
        if (!hadOne)
        {
            bound++;
        }
        counters.increment(ServerCounter.MEMORY_WINDOW_BINDS);
        publish();
        return true;
    }

    /** A window {@link #reserve}d for a grant that did not happen. */
    void unused(final MemoryWindow window)
    {
        if (window != null)
        {
            window.close();
        }
    }

    /** Deallocates {@code session}'s window: it is fenced (its queue pair already in ERR). Idempotent. */
    void revoke(final ServerSession session)
    {
        if (session.window() != null)
        {
            session.closeWindow();
            bound--;
            counters.increment(ServerCounter.MEMORY_WINDOW_REVOCATIONS);
            publish();
        }
    }

    /** Windows bound now, all sessions together. */
    long bound()
    {
        return bound;
    }

    private void publish()
    {
        counters.set(ServerCounter.MEMORY_WINDOWS_BOUND, bound);
    }
}
