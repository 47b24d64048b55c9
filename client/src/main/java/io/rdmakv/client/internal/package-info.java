/**
 * The client's machinery behind {@link io.rdmakv.client.KvClient}, in four packages. Ownership and calls flow
 * one way, top to bottom, between the packages as within them; nothing calls back up.
 *
 * <pre>
 * KvClient                the API; stages a key (and value) on this thread's lane, runs one operation through
 *                         one template, maps failures to exceptions (Failures); Connector learns the map
 * internal.session        the sessions
 *  Router                 partitions to nodes; the per-thread session table; a write's replica chain; counters
 *                         of dropped sessions
 *  ClientJanitor          one background thread: each tick runs its duties (KvClient builds the list) over every
 *                         open session, taking a lane only with tryEnter; HeartbeatDuty: a HEARTBEAT on each
 *                         session's bootstrap connection every interval the node asked for (no lane needed)
 *  Session                one node: a NodeSession of the peer module (bootstrap connection, the lease: HELLO, then
 *                         heartbeats, TLS 1.3 when configured; queue pair; SessionIo, which posts a chain, polls
 *                         completions and keeps the receive buffers; ControlChannel, control requests and replies
 *                         over SEND/RECV, notices) over memory laid out as LaneBuffers; owns besides the lane's
 *                         LaneRequests, SpaceLease and Lane
 * internal.op             the data path of one lane
 *  Lane                   key and value staging, one class per operation:
 *   GetProtocol           cached slot (1 round trip) or groups + block (2)
 *   PutProtocol           cached CAS (1-2), or groups + block + CAS (3); absent keys to InsertProtocol;
 *                         a damaged slot to DamageRepair, then inserts afresh
 *   InsertProtocol        under the group's insert lock: lock + re-read, CAS slot + unlock
 *   DeleteProtocol        find as PUT does, CAS to empty, FREE the block; a damaged slot to DamageRepair
 *   DamageRepair          REPAIR of the suspect slot over the ControlChannel (waits out RETRY); GET never
 *   CompareAndSetProtocol CAS from exactly the version given; ABSENT inserts only if absent
 *   BatchGet              up to 16 keys in two doorbells (BatchRequests: chains of varying length into
 *                         per-key buffers); what it cannot settle the caller runs as single GETs
 *   BatchPut              up to 16 entries: WRITE all blocks with the CASes, confirmations or groups;
 *                         then the CASes (and candidate blocks, then their CASes); blocks reserved
 *                         together in the SpaceLease and settled (FREE or reuse of the unused ones);
 *                         what it cannot settle the caller runs as single PUTs
 *   shared steps: BlockSearch (candidates, validation, corruption verdict), CachedSlot (this lane's copy of an
 *   entry of the client's SlotCache, which Router hands every session), NewBlock (assemble through KvBlock,
 *   place, WRITE in the first doorbell, commit), LaneResult (version, value)
 * internal.chain          a slot commit along the key's replica chain
 *  ChainCommit            on the primary alone, or along the chain first (ReplicaChain: WRITEs, then the
 *                         backups' CASes in order), then on the primary; StuckWrite: HELP for a chain lost at
 *                         the first backup; ChainFaults: a test hook inside that window
 * internal.lane           what a lane is made of
 *  LaneRequests           every data-path doorbell prebuilt once; operations patch addresses and words
 *  SpaceLease             the lane's extent and FREE batch; ALLOC and FREE through the ControlChannel
 *  KeyLocation            hash, groups, slot addresses, insert lock of the staged key
 *  LaneBuffers            layout of a lane's registered memory; RemoteIndex: the node's addresses and rkeys
 *  ClientCounter          every counter, one enum constant; LaneCounters holds them in a long[]
 *  Backoff                the bounded back-off between attempts
 * Status (peer)           the data path's result codes (no exceptions on the data path)
 * </pre>
 *
 * <p>Each package says in its own {@code package-info} what it makes public and why. Internal: not API.
 */
package io.rdmakv.client.internal;
