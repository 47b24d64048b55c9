/**
 * Replicated slot commits (chain replication of the slot CAS, FUSEE-CR style): how a lane's write goes along
 * the key's backups before the primary. Below the operations, above the lane's parts ({@code internal.lane});
 * nothing here calls up.
 *
 * <pre>
 * ChainCommit   a slot commit: on the primary alone, or along the key's chain first and then on the primary
 * ReplicaChain  the key's backups and copying nodes for the write under way (their LaneRequests, set by the
 *               router per operation), and the commit along them: WRITEs, then the backups' CASes in order
 * StuckWrite    a chain lost at the first backup to a word the primary lacks: HELP asks the primary to finish it
 * ChainFaults   a test hook inside a write, after its first backup's CAS (fault injection; not for production)
 * </pre>
 *
 * <p>Public: what the operations use (ChainCommit's three commits, ReplicaChain's state of the last commit), what
 * the lane and the router set up (a ChainCommit per lane, its chain's backups and its StuckWrite), and
 * ChainFaults for the system tests. The commit itself, its outcomes and the HELP exchange stay package-private.
 * Internal: not API.
 */
package io.rdmakv.client.internal.chain;
