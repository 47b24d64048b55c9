package io.rdmakv.client;

import io.rdmakv.client.internal.session.Session;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.peer.Status;

import java.time.Duration;

/** Turns a data-path failure {@link Status} into the exception the API promises, naming the node. */
final class Failures
{
    private final Duration opTimeout;
    private final int maxAttempts;

    Failures(final Duration opTimeout, final int maxAttempts)
    {
        this.opTimeout = opTimeout;
        this.maxAttempts = maxAttempts;
    }

    KvException of(final Session session, final int status, final String operation)
    {
        final String node = session.address().getHostString() + ":" + session.address().getPort();
        return switch (status)
        {
            case Status.TABLE_FULL -> new TableFullException(operation + ": the index of node " + node +
                " has no free slot for this key");
            case Status.OUT_OF_SPACE -> outOfSpace(session, operation, node);
            case Status.TIMEOUT -> new KvTimeoutException(operation + ": node " + node + " did not answer within " +
                opTimeout.toMillis() + " ms (waiting for " + session.timedOutWaitingFor() + ")");
            case Status.RETRIES_EXHAUSTED -> new KvException(operation + ": gave up after " + maxAttempts +
                " attempts on a heavily contended key at node " + node);
            case Status.CORRUPTED -> new CorruptedBlockException(operation + ": a block of this key's bucket at node " +
                node + " fails its checksum and did not change: the stored data is damaged; nothing was returned" +
                (session.lane().lastRepairRefusal().isEmpty() ? "" :
                    " (the node did not repair it: " + session.lane().lastRepairRefusal() + ")"));
            case Status.FROZEN -> new KvException(operation + ": node " + node + " holds the key's partition frozen " +
                "for a move, which a cluster without replication never does; nothing was changed");
            case Status.MOVED -> new KvException(operation + ": node " + node + " marks the key's partition moved " +
                "away, which a cluster without replication never does; nothing was read or changed");
            case Status.LEASE_EXPIRED -> new KvConnectionException(operation + ": the read lease on node " + node +
                " ran out before the reads completed (the node stopped confirming it is current: it may have been " +
                "replaced); nothing was returned");
            default -> new KvConnectionException(operation + ": " + (session.shutdownNoticed() ?
                "node " + node + " is shutting down" : "lost the connection to node " + node) + " (" +
                Status.name(status) + ")");
        };
    }

    /** A full node, or this session's quota used up on a node that may well have space (its text says how much). */
    private static OutOfSpaceException outOfSpace(final Session session, final String operation, final String node)
    {
        final CodedRefusalMessage refusal = session.spaceRefusal();
        if (refusal != null && refusal.reason() == ReasonCode.QUOTA_EXCEEDED)
        {
            return new OutOfSpaceException(operation + ": this session's quota at node " + node +
                " is used up, not the node (" + refusal.text() + ")");
        }
        return new OutOfSpaceException(operation + ": node " + node + " has no data space left");
    }

    static KeyTooLargeException keyTooLarge(final long length, final int limit)
    {
        return new KeyTooLargeException("key of " + length + " bytes is over the limit of " + limit);
    }

    static ValueTooLargeException valueTooLarge(final long length, final int limit)
    {
        return new ValueTooLargeException("value of " + length + " bytes is over the limit of " + limit);
    }
}
