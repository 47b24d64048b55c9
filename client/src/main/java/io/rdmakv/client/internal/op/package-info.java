/**
 * The data path of one lane: {@link io.rdmakv.client.internal.op.Lane} stages a key (and a value), then runs one
 * operation, one class each, over steps they share. Operations return {@code Status} codes and allocate nothing.
 *
 * <pre>
 * Lane                  the entry: stage, run, count; builds everything below once per lane
 *  GetProtocol            cached slot (1 round trip) or groups + block (2)
 *  PutProtocol            cached CAS (1-2), or groups + block + CAS (3); absent keys to InsertProtocol;
 *                         a damaged slot to DamageRepair, then inserts afresh
 *  InsertProtocol         under the group's insert lock: lock + re-read, CAS slot + unlock
 *  DeleteProtocol         find as PUT does, CAS to empty, FREE the block; a damaged slot to DamageRepair
 *  CompareAndSetProtocol  CAS from exactly the version given; ABSENT inserts only if absent
 *  DamageRepair           REPAIR of the suspect slot over the ControlChannel (waits out RETRY); GET never asks
 *  BatchGet               up to 16 keys in two doorbells (BatchRequests: chains of varying length into
 *                         per-key buffers); what it cannot settle the caller runs as single GETs
 *  BatchPut               up to 16 entries in two or three doorbells, blocks reserved together in the
 *                         SpaceLease; what it cannot settle the caller runs as single PUTs
 *  shared steps: BlockSearch (candidates, validation, corruption verdict), CachedSlot (this lane's copy of an
 *  entry of the client's SlotCache), NewBlock (assemble through KvBlock, place, WRITE in the first doorbell,
 *  commit), LaneResult (version, value)
 * </pre>
 *
 * <p>Below: the lane's parts ({@code internal.lane}: key location, doorbells, space, counters) and the slot
 * commit along a replica chain ({@code internal.chain}). Above: the session that builds the Lane and the router
 * that sets its chain ({@code internal.session}), and {@code KvClient}. Public: {@code Lane} (its operations, and
 * its construction and chain for the session and router), {@code LaneResult} and {@code SlotCache} (shared by
 * every session of a client, sized by its config); every protocol and step stays package-private. The data
 * path's unit tests (a scripted queue pair and node, a manual clock) are in this package too. Internal: not API.
 */
package io.rdmakv.client.internal.op;
