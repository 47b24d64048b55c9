package io.rdmakv.server.control;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.HelpMessage;
import io.rdmakv.common.protocol.HelpReplyMessage;
import io.rdmakv.common.protocol.HelpReplyMessage.Outcome;
import io.rdmakv.server.space.IndexAtomics;

/**
 * Answers HELP on a primary: a client found the first backup of its key's slot holding a word this node's
 * slot does not hold yet, so that word's writer is between its backup CAS and its primary CAS, or died
 * there. This node finishes the write (CAS from the expected word, through {@link IndexAtomics}) only when
 * its writer could still finish it itself: the block lies inside a grant of a session that is still live
 * here, and it is a whole block (checksum, header) of the key asked about. A live session's whole block of another
 * key (two inserts of different keys raced for one empty slot) is answered CHANGED: the asker lost the slot, and
 * that block's writer finishes its own write (docs/limitations.md, "An insert can wait behind another key's
 * insert"). A writer that is gone had its session fenced before its space was reclaimed, so it can never CAS
 * here again: the answer is REFUSED and the client puts the backups back, which no one can then undo. Pushing a
 * gone writer's word instead would make the slot name space the allocator has freed. The rule lives in {@link FinishRule}, which the partition
 * freezer decides with too.
 *
 * <p>Control thread only (it decides with the allocator's view, which nothing else changes meanwhile).
 */
public final class ChainHelp
{
    private final RegionGeometry geometry;
    private final IndexSegments segments;
    private final IndexAtomics atomics;
    private final FinishRule rule;
    private final ServerCounters counters;

    public ChainHelp(final RegionGeometry geometry, final IndexSegments segments, final IndexAtomics atomics,
        final FinishRule rule, final ServerCounters counters)
    {
        this.geometry = geometry;
        this.segments = segments;
        this.atomics = atomics;
        this.rule = rule;
        this.counters = counters;
    }

    public HelpReplyMessage help(final HelpMessage request)
    {
        final long id = request.requestId();
        final long group = request.group();
        final byte[] key = request.key();
        final long hash = KeyHash.hash(key);
        final long groups = geometry.groupCount();
        if (group >= groups || !segments.isCandidateGroup(hash, group))
        {
            return refused(id, 0L);
        }
        final long slotOffset = geometry.slotRegionOffset(group, request.slot());
        final long word = request.word();
        final long current = atomics.get(slotOffset);
        if (current == word)
        {
            counters.increment(ServerCounter.CHAIN_HELPED);
            return new HelpReplyMessage(id, Outcome.HELPED, current);
        }
        if (current != request.expected())
        {
            counters.increment(ServerCounter.CHAIN_HELPS_CHANGED);
            return new HelpReplyMessage(id, Outcome.CHANGED, current);
        }
        // a frozen slot is settled by the node that froze it, never by a writer's HELP (the rule refuses a frozen word)
        if (SlotWord.isMoving(request.expected()) || !rule.mayFinish(word, group))
        {
            return refused(id, current);
        }
        if (SlotWord.fingerprint(word) != KeyHash.fingerprint(hash) || !rule.keyEquals(key))
        {
            // a live session's whole block of another key (two inserts raced for one empty slot): its writer is
            // between its backup and primary CAS and finishes it itself; the asker lost the slot. Refusing would
            // have the asker put the backups back under a writer that then wins the primary (a decided write undone)
            counters.increment(ServerCounter.CHAIN_HELPS_CHANGED);
            return new HelpReplyMessage(id, Outcome.CHANGED, current);
        }
        final long seen = atomics.compareAndSwap(slotOffset, request.expected(), word);
        if (seen == request.expected() || seen == word)
        {
            counters.increment(ServerCounter.CHAIN_HELPED);
            return new HelpReplyMessage(id, Outcome.HELPED, word);
        }
        counters.increment(ServerCounter.CHAIN_HELPS_CHANGED);
        return new HelpReplyMessage(id, Outcome.CHANGED, seen);
    }

    private HelpReplyMessage refused(final long id, final long current)
    {
        counters.increment(ServerCounter.CHAIN_HELPS_REFUSED);
        return new HelpReplyMessage(id, Outcome.REFUSED, current);
    }
}
