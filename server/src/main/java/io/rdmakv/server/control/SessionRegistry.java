package io.rdmakv.server.control;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions a node serves now, by queue-pair number (how completions find them) and by session id
 * (how the lock sweep tells a live insert-lock word from a stale one). Changed on the control agent's
 * thread and at registration; read from any thread.
 */
public final class SessionRegistry
{
    private final Map<Integer, ServerSession> byQpNum = new ConcurrentHashMap<>();
    private final Map<Long, ServerSession> byId = new ConcurrentHashMap<>();

    void add(final ServerSession session)
    {
        byId.put(session.id(), session);
        byQpNum.put(session.qp().qpNum(), session);
    }

    void remove(final ServerSession session)
    {
        byQpNum.remove(session.qp().qpNum(), session);
        byId.remove(session.id(), session);
    }

    /** The session whose queue pair is {@code qpNum}, or null. */
    ServerSession byQpNum(final int qpNum)
    {
        return byQpNum.get(qpNum);
    }

    /**
     * Whether {@code sessionId} is a session registered and not yet departed: an insert-lock word that is
     * not is stale ({@link io.rdmakv.server.space.IndexScanner#clearStaleLocks}). A session is registered
     * before its client learns its id (HELLO_OK), so a lock word a client wrote is live from the moment it
     * can be read.
     */
    public boolean isLive(final long sessionId)
    {
        return byId.containsKey(sessionId);
    }

    /** The registered session {@code sessionId}, or null. */
    ServerSession byId(final long sessionId)
    {
        return byId.get(sessionId);
    }

    public int count()
    {
        return byQpNum.size();
    }

    /**
     * The lowest epoch the registered sessions' heartbeats reported ({@link ServerSession#reportedEpoch}), or
     * {@code none} when none has reported yet. Any thread.
     */
    public long lowestReportedEpoch(final long none)
    {
        long lowest = Long.MAX_VALUE;
        for (final ServerSession session : byId.values())
        {
            final long reported = session.reportedEpoch();
            if (reported >= 0 && reported < lowest)
            {
                lowest = reported;
            }
        }
        return lowest == Long.MAX_VALUE ? none : lowest;
    }

    /**
     * Sessions whose client may still run an operation under a map older than {@code epoch}: the oldest epoch its
     * heartbeats reported, or, before the first, the epoch it was opened under, is below it. Any thread.
     */
    public int countBelow(final long epoch)
    {
        int count = 0;
        for (final ServerSession session : byId.values())
        {
            if (!session.departed() && session.oldestEpoch() < epoch)
            {
                count++;
            }
        }
        return count;
    }

    Collection<ServerSession> all()
    {
        return byQpNum.values();
    }
}
