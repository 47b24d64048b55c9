package io.rdmakv.client.internal.session;

import java.util.List;

/**
 * The duties the client's {@link ClientJanitor} runs over every open session, listed in one place: one
 * line per duty.
 */
public final class JanitorDuties
{
    private JanitorDuties()
    {
    }

    /** Every duty but following the map, in the order they run; heartbeats report each session's opening epoch. */
    public static List<ClientJanitor.Duty> all()
    {
        return List.of(
            new HeartbeatDuty(null),
            JanitorDuties::sendDueFrees);
    }

    /**
     * Every duty, in the order they run: heartbeats that report the oldest epoch of {@code routers}' operations, FREEs
     * of idle lanes, and {@code follow} (a node that said it applied a newer map than the client's: its map fetched).
     */
    public static List<ClientJanitor.Duty> all(final java.util.function.Supplier<Router> routers,
        final ClientJanitor.Duty follow)
    {
        return List.of(
            new HeartbeatDuty(routers),
            JanitorDuties::sendDueFrees,
            follow);
    }

    /**
     * FREEs of an idle lane: a lane sends its due FREE batch before each operation; one that stopped
     * working has it sent here, so superseded space goes back within {@code FREE_FLUSH_NANOS} plus one tick
     * whether or not the application keeps using the lane. A lane in use is left alone.
     */
    static void sendDueFrees(final Session session, final long nowNanos)
    {
        session.sendDueFrees();
    }
}
