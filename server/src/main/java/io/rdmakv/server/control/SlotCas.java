package io.rdmakv.server.control;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.SlotCasMessage;
import io.rdmakv.common.protocol.SlotCasReplyMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.space.IndexAtomics;

import java.lang.foreign.MemorySegment;

/**
 * The node's side of the node-assisted write path: a client whose node's device has no remote atomics (or whose node
 * was told {@code --write-path node-assisted}) sends each index CAS as SLOT_CAS, and this runs it through the node's
 * own {@link IndexAtomics} and answers with the word each entry held before, exactly what an RDMA CAS would have
 * left in the client's buffer.
 *
 * <p>Hostile input: every entry is checked before any runs, and one bad entry refuses the whole request with ERROR
 * {@link ReasonCode#BAD_SLOT_CAS} (nothing changed). An entry must name an 8-byte aligned word of the index (not
 * the region header, not past the index, so never the data area): a slot, or a group's insert lock (the header
 * word of its second bucket; the first bucket's header is reserved and refused). A slot may be swapped only to 0
 * or to a word naming a block inside the data area; an insert lock only taken by the asking session (0 to its
 * session id) or given back by it (its id to 0), so that a client cannot take or clear another's lock this way
 * (a one-sided CAS could; the node's sweep clears a forged lock there). The session is a registered one whose
 * queue pair the request came in on (the bootstrap authenticated it) and that has not departed.
 *
 * <p>Runs on the control agent's thread, in place in the session's receive and reply buffers: no record is
 * decoded and nothing is allocated unless the request is refused.
 */
final class SlotCas
{
    private final IndexAtomics atomics;
    private final RegionGeometry geometry;
    private final ServerCounters counters;
    private final boolean enabled;

    /**
     * @param enabled whether this node's clients write node-assisted; when not, SLOT_CAS is refused as unexpected
     *                (clients CAS the index themselves there)
     */
    SlotCas(final IndexAtomics atomics, final RegionGeometry geometry, final ServerCounters counters,
        final boolean enabled)
    {
        this.atomics = atomics;
        this.geometry = geometry;
        this.counters = counters;
        this.enabled = enabled;
        counters.set(ServerCounter.NODE_ASSISTED_WRITES, enabled ? 1 : 0);
    }

    /**
     * Serves the SLOT_CAS of {@code length} bytes at {@code request} in {@code buffers} for session {@code sessionId}
     * and writes its answer at {@code reply}: SLOT_CAS_REPLY, or ERROR. Returns the answer's length.
     */
    int serve(final long sessionId, final MemorySegment buffers, final long request, final int length,
        final long reply)
    {
        final long requestId = MessageHeaderDescriptor.requestId(buffers, request);
        if (!enabled)
        {
            counters.increment(ServerCounter.MALFORMED_MESSAGES);
            return refuse(buffers, reply, requestId, ReasonCode.UNEXPECTED_MESSAGE, 1,
                "SLOT_CAS to a node whose clients CAS its index themselves (HELLO_OK said one-sided writes)");
        }
        final int count = SlotCasMessage.count(buffers, request, length);
        if (count < 0)
        {
            counters.increment(ServerCounter.MALFORMED_MESSAGES);
            return refuse(buffers, reply, requestId, ReasonCode.MALFORMED_MESSAGE, 1,
                "SLOT_CAS of " + length + " bytes: a count of 1.." + SlotCasMessage.MAX_ENTRIES +
                " entries that agrees with its length, reserved field 0");
        }
        for (int i = 0; i < count; i++)
        {
            final String why = check(sessionId, SlotCasMessage.regionOffset(buffers, request, i),
                SlotCasMessage.expected(buffers, request, i), SlotCasMessage.swap(buffers, request, i));
            if (why != null)
            {
                return refuse(buffers, reply, requestId, ReasonCode.BAD_SLOT_CAS, count, "SLOT_CAS entry " + i +
                    ": " + why + "; nothing of the request ran");
            }
        }
        counters.increment(ServerCounter.SLOT_CAS_REQUESTS);
        final int replyLength = SlotCasReplyMessage.begin(buffers, reply, requestId, count);
        int swapped = 0;
        for (int i = 0; i < count; i++)
        {
            final long expected = SlotCasMessage.expected(buffers, request, i);
            final long seen = atomics.compareAndSwap(SlotCasMessage.regionOffset(buffers, request, i), expected,
                SlotCasMessage.swap(buffers, request, i));
            SlotCasReplyMessage.seen(buffers, reply, i, seen);
            swapped += seen == expected ? 1 : 0;
        }
        counters.add(ServerCounter.SLOT_CAS_SWAPPED, swapped);
        counters.add(ServerCounter.SLOT_CAS_LOST, count - swapped);
        return replyLength;
    }

    /** Why session {@code sessionId} may not CAS the word at {@code offset} from {@code expected} to {@code swap}, or null. */
    String check(final long sessionId, final long offset, final long expected, final long swap)
    {
        if ((offset & (Long.BYTES - 1)) != 0)
        {
            return "region offset " + offset + " is not 8-byte aligned";
        }
        if (offset < geometry.indexOffset() || offset >= geometry.indexOffset() + geometry.indexLength())
        {
            return "region offset " + offset + " is outside the index [" + geometry.indexOffset() + ", " +
                (geometry.indexOffset() + geometry.indexLength()) + ")";
        }
        final long inGroup = (offset - geometry.indexOffset()) % BucketDescriptor.GROUP_LENGTH;
        if (inGroup == BucketDescriptor.BUCKET_HEADER_OFFSET)
        {
            return "region offset " + offset + " is a bucket group's MOVED mark, which only nodes write";
        }
        if (inGroup == BucketDescriptor.INSERT_LOCK_OFFSET)
        {
            return (expected == 0 && swap == sessionId) || (expected == sessionId && swap == 0) ? null :
                "an insert lock may only be taken (0 to " + sessionId + ") or given back (" + sessionId +
                " to 0) by its own session, not " + expected + " to " + swap;
        }
        if (SlotWord.isMoving(expected) || SlotWord.isMoving(swap))
        {
            return "a client never CASes from or to a slot frozen for a move (" + SlotWord.toString(expected) + " to " +
                SlotWord.toString(swap) + "): only nodes set and clear MOVING";
        }
        return swap == SlotWord.EMPTY || SlotWord.isWithin(swap, geometry.dataLength()) ? null :
            "slot word " + SlotWord.toString(swap) + " names no block inside the data area";
    }

    /** Writes ERROR at {@code reply} (the refused path: allocates its record and text) and counts the words refused. */
    private int refuse(final MemorySegment buffers, final long reply, final long requestId, final ReasonCode reason,
        final int words, final String text)
    {
        counters.add(ServerCounter.SLOT_CAS_REFUSED, words);
        return ControlCodec.encode(CodedRefusalMessage.error(requestId, reason.code(), text), buffers, reply);
    }
}
