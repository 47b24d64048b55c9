package io.rdmakv.client.internal.session;

/**
 * The janitor's duty that keeps every open session's lease: a HEARTBEAT on its bootstrap connection each
 * interval the node gave in HELLO_OK ({@link Session#heartbeatIfDue}). It never takes the lane: a long
 * operation (or one stuck until its timeout) must not cost the session its lease.
 */
public final class HeartbeatDuty implements ClientJanitor.Duty
{
    @Override
    public void run(final Session session, final long nowNanos)
    {
        session.heartbeatIfDue(nowNanos);
    }
}
