package io.rdmakv.common;

import java.util.concurrent.TimeUnit;

/**
 * The timing rules that keep space reuse safe, which server and clients must agree on, and why a FREE
 * needs no deadline.
 *
 * <ul>
 * <li>A freed block is granted again only after the server's grace period (sent to clients in
 *     HELLO_OK). A reader whose slot read and block read both fall within half the grace period can
 *     therefore never see a reused block, and a client may trust a cached slot word for that long.</li>
 * <li>A client sends a superseded block in a FREE batch once the batch's oldest entry waited
 *     {@link #FREE_FLUSH_NANOS}: before the lane's next operation, or, if the lane stays idle, from the
 *     client's janitor within one more janitor tick. An entry is never dropped, however old.</li>
 * <li>A late FREE is safe, because the node accepts a FREE entry only when the range is the sender's own
 *     grant, or exactly one well-formed block of another session that lies outside that session's latest
 *     extent (one inside it is held until that session is granted another extent); and in both cases only
 *     when no slot references any block the range overlaps. A block
 *     becomes referenced only by its writer's commit CAS while it is in flight, and a writer carves blocks
 *     only from its latest extent and finishes an operation before it asks for the next one: so space that
 *     passes these checks is garbage for good, whoever names it and however late. A departed (or fenced)
 *     session's own FREEs can no longer arrive at all: its queue pair is in ERR before its space is
 *     reclaimed, and its grants are gone with it.</li>
 * <li>Space the server reclaims from a departed session by scanning the index waits
 *     {@link #reclaimQuarantineNanos} before it is granted again: the grace period (a reader may still be
 *     on a block that was superseded just before the departure) plus {@link #RECLAIM_MARGIN_NANOS} for
 *     data-path requests the transport may still have been executing when the queue pair entered ERR.
 *     It need not outwait FREEs in flight: a late FREE is safe (above).</li>
 * </ul>
 */
public final class SpaceTiming
{
    /** Default grace period before freed space is reused. */
    public static final long DEFAULT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** A client sends its FREE batch once the oldest entry waited this long (its lane, or its janitor). */
    public static final long FREE_FLUSH_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /** What reclaimed space waits beyond the grace period: requests still in the transport at departure. */
    public static final long RECLAIM_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private SpaceTiming()
    {
    }

    /** How long space reclaimed from a departed client waits before it may be granted again. */
    public static long reclaimQuarantineNanos(final long graceNanos)
    {
        return graceNanos + RECLAIM_MARGIN_NANOS;
    }
}
