package io.rdmakv.client.internal.session;

import java.util.function.Supplier;

/**
 * The janitor's duty that keeps every open session's lease: a HEARTBEAT on its bootstrap connection each
 * interval the node gave in HELLO_OK ({@link Session#heartbeatIfDue}), saying the oldest map epoch an operation of
 * this client may still run under ({@link Router#oldestOperatingEpoch}, of the client's current router). It never
 * takes the lane: a long operation (or one stuck until its timeout) must not cost the session its lease.
 */
public final class HeartbeatDuty implements ClientJanitor.Duty
{
    private final Supplier<Router> routers;
    private final java.util.function.LongSupplier oldest;

    /** @param routers the client's current router (null: report the epoch each session was opened under) */
    public HeartbeatDuty(final Supplier<Router> routers)
    {
        this.routers = routers;
        this.oldest = routers == null ? null : () -> routers.get().oldestOperatingEpoch();
    }

    @Override
    public void run(final Session session, final long nowNanos)
    {
        if (routers == null)
        {
            session.heartbeatIfDue(nowNanos);
            return;
        }
        session.heartbeatIfDue(nowNanos, oldest);
    }
}
