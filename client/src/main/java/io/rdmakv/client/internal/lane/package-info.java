/**
 * What one lane (one queue pair to one node, used by one thread at a time) is made of, below the operations
 * that run on it: nothing here calls anything else of the client.
 *
 * <pre>
 * LaneBuffers    layout of the lane's registered memory (reads land, blocks are assembled, atomics return)
 * RemoteIndex    the node's index and data area as the lane addresses them (from HELLO_OK)
 * KeyLocation    where the staged key can live on the node: fingerprint, both candidate groups, 28 slots
 * LaneRequests   every doorbell of the data path, prebuilt once; an operation patches addresses and words
 * SpaceLease     the lane's share of the node's data area: its extent (ALLOC) and FREE batch
 * ClientCounter  every counter, one enum constant; LaneCounters holds one lane's values in a long[]
 * Backoff        the bounded back-off between attempts that lost a race
 * </pre>
 *
 * <p>Every class here is public, with what the packages above use: the operations ({@code internal.op}), the
 * chain commit ({@code internal.chain}) and the session ({@code internal.session}) build and drive these, and
 * the client's statistics and metrics read {@link io.rdmakv.client.internal.lane.ClientCounter} and {@link
 * io.rdmakv.client.internal.lane.LaneCounters}. What only this package uses (the buffer offsets of the single
 * operations' doorbells, the insert lock's address, how a group number becomes an address) stays
 * package-private. Internal: not API.
 */
package io.rdmakv.client.internal.lane;
