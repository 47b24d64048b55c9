package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.server.space.IndexScanner;
import org.agrona.concurrent.NanoClock;

/**
 * How the control agent tears a session down. Fence first: its queue pair goes to ERR (nothing more
 * arrives, nothing is answered, and a client that wakes up later cannot write or take a lock) and its
 * memory window is deallocated ({@link GrantWindows#revoke}), then the
 * FREEs (and BYE) it sent before are still served in its turns, then {@link #reclaim} releases its insert
 * locks and takes what it held that nothing references. Agent thread only.
 */
final class Departures
{
    private static final System.Logger LOG = System.getLogger(Departures.class.getName());

    private final SessionRegistry sessions;
    private final DeferredFrees deferred;
    private final SpaceRequests space;
    private final IndexScanner scanner;
    private final NanoClock clock;
    private final GrantWindows windows;

    Departures(final SessionRegistry sessions, final DeferredFrees deferred, final SpaceRequests space,
        final IndexScanner scanner, final NanoClock clock, final GrantWindows windows)
    {
        this.windows = windows;
        this.sessions = sessions;
        this.deferred = deferred;
        this.space = space;
        this.scanner = scanner;
        this.clock = clock;
    }

    /** Fences {@code session} for {@code why}; reclaims at once unless FREEs (or BYE) wait ({@code closing}: none do). */
    void depart(final ServerSession session, final String why, final boolean closing)
    {
        if (session.departed())
        {
            return;
        }
        session.markDeparted();
        deferred.forget(session.id());
        sessions.remove(session);
        session.qp().modifyToError();
        windows.revoke(session);
        session.departure = why;
        session.inbox.removeIf(p -> p.free() == null && !(p.message() instanceof ByeMessage) || closing);
        if (session.inbox.isEmpty())
        {
            reclaim(session);
        }
    }

    /** Releases a departed session's locks and unreferenced space, once its last requests were served. */
    void reclaim(final ServerSession session)
    {
        final String why = session.departure;
        session.departure = null;
        session.close();
        // FREEs it sent before departing may have deferred blocks of its own latest extent: the scan takes them
        deferred.forget(session.id());
        final String what = space.reclaim(session.id(), scanner, clock.nanoTime());
        space.publish();
        LOG.log(System.Logger.Level.DEBUG, session + " departed because " + why + "; " + what);
    }
}
