/**
 * Re-replication: a node that joins a replica group as a copying node makes its region equal to the group
 * primary's, for every slot and the block it references, with one-sided RDMA READs over a session of its own
 * with the primary and CPU writes into its own region (docs/design.md, "Copy and seal").
 *
 * <pre>
 * RegionCopier   one diff pass over the whole index: opens the session, checks the geometry, walks the index
 *                chunk by chunk (ChunkCopier), reports (CopyReport); created lazily by KvServer.regionCopier()
 *  ChunkCopier   one chunk: READ the primary's index there, compare each slot with this node's, READ the
 *                blocks of the slots that differ (chains of READs into CopyBuffer), validate (BlockCheck),
 *                copy block then slot; redoes a chunk that took longer than half the grace period
 *  CopyBuffer    the registered local memory the READs land in: an index chunk, fresh slot words, blocks
 *  BlockCheck    what a copied block must be: inside the data area, sane lengths, its checksum, the
 *                slot's length and fingerprint, and a key that hashes to the slot's group
 *  CopyTally     the counters of one pass, frozen into a CopyReport
 *  PeerTls       the TLS context a node dials a peer with (its own certificate; the cluster CA)
 * </pre>
 */
package io.rdmakv.server.replication;
