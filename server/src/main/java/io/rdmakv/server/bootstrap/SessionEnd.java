package io.rdmakv.server.bootstrap;

/**
 * How a session's bootstrap connection ended, as its {@link BootstrapListener} saw it.
 *
 * @param kind   what happened
 * @param detail one line for the log
 */
public record SessionEnd(Kind kind, String detail)
{
    /** What ended the session. */
    public enum Kind
    {
        /** The connection closed (the client left, died, or the node closed it): a departure. */
        CLOSED,
        /** No whole HEARTBEAT arrived within the lease timeout: the client is frozen, partitioned or too slow. */
        LEASE_EXPIRED,
        /** Something other than a well-formed HEARTBEAT arrived after HELLO_OK. */
        BAD_FRAME
    }
}
