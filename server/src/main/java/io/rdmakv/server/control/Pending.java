package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.server.space.FreeJob;

/**
 * A request received and not yet served, in its session's inbox. It keeps its receive buffer until it is
 * served, so a session has at most {@link ServerSession#RECV_BUFFERS} requests waiting and one that sends
 * faster than the node serves it is held back by its own transport (receiver not ready), not queued here.
 *
 * @param buffer  the receive buffer the request arrived in, posted again once it is served
 * @param message the request
 * @param free    for a FREE, its entries' progress; else null
 * @param census  the index census passes completed when it arrived (a STATS is answered by any later pass)
 */
record Pending(int buffer, ControlMessage message, FreeJob free, long census)
{
}
