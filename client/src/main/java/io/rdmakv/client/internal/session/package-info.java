/**
 * The client's sessions: one per thread per node, where each key goes, and the background thread that keeps
 * them. The top of the client's machinery, under {@link io.rdmakv.client.KvClient} and its helpers.
 *
 * <pre>
 * Router              partitions to groups to nodes from the cluster map; the per-thread session table (opened on
 *                     first use, or the connect's spare adopted; dropped when broken); a write's replica chain
 *                     (this thread's lanes to the key's backups and copying nodes); counters of dropped sessions;
 *                     owns every session it opens until it closes it or hands it on (a StaleMapException's)
 *  StaleMapException  a node answered a new session with a newer cluster map: switch to it and retry
 *  RouterClosedException  the router is closed (the client, or a router retired after a fence): retry on the
 *                     current one, or fail as closed
 *  GroupLostException every replica of the key's group is gone
 * Session             one node: a peer NodeSession (bootstrap connection and lease, queue pair, SessionIo,
 *                     ControlChannel) over memory laid out as LaneBuffers; builds and closes the lane's
 *                     LaneRequests, SpaceLease and Lane
 * ClientJanitor       one background thread: each tick runs its duties (JanitorDuties lists them) over every open
 *                     session, taking a lane only with tryEnter or borrow; HeartbeatDuty: a HEARTBEAT on each
 *                     session's bootstrap connection every interval the node asked for (no lane needed), with the
 *                     oldest epoch an operation may still run under
 * MapAreaReader       READs of a node's map area on a borrowed session (header, buffer, header; CRC; bounded)
 * </pre>
 *
 * <p>Below: the data path ({@code internal.op}), the replica chain ({@code internal.chain}) and the lane's parts
 * ({@code internal.lane}); none of them calls back up. Every class here is public, for {@code KvClient},
 * {@code Connector}, {@code MapFollower}, {@code Batches} and the other classes of {@code io.rdmakv.client}
 * (and a system test reads {@code ClientJanitor.TICK_NANOS}). Internal: not API.
 */
package io.rdmakv.client.internal.session;
