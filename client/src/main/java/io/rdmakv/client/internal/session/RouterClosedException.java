package io.rdmakv.client.internal.session;

/**
 * The router was closed: the client closed, or the router is one retired after a fencing map change (closed one
 * map later) that an operation still held. A session it was opening meanwhile has been closed. The client runs the
 * operation again on its current router, or fails it as closed.
 */
public final class RouterClosedException extends IllegalStateException
{
    public RouterClosedException(final long epoch)
    {
        super("the router of map epoch " + epoch + " is closed (client is closed, or it moved on to a newer map)");
    }
}
