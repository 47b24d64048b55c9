package io.rdmakv.common;

import java.util.concurrent.TimeUnit;

/**
 * The timing rules that keep space reuse safe, which server and clients must agree on.
 *
 * <ul>
 * <li>A freed block is granted again only after the server's grace period (sent to clients in
 *     HELLO_OK). A reader whose slot read and block read both fall within half the grace period can
 *     therefore never see a reused block, and a client may trust a cached slot word for that long.</li>
 * <li>A client sends a superseded block in a FREE batch within {@link #FREE_FLUSH_NANOS} of
 *     superseding it, and never later than {@link #FREE_MAX_AGE_NANOS}: older entries are dropped
 *     (leaked until their extent's owner leaves) rather than risk freeing space the server already
 *     reclaimed.</li>
 * <li>Space the server reclaims from a departed client by scanning the index is quarantined for
 *     {@link #FREE_MAX_AGE_NANOS} plus the grace period: any FREE for it still in flight arrives
 *     (and is refused as a double free) before the space can be granted again.</li>
 * </ul>
 */
public final class SpaceTiming
{
    /** Default grace period before freed space is reused. */
    public static final long DEFAULT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** A client flushes its FREE batch at least this often while it has operations to run. */
    public static final long FREE_FLUSH_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    /** A FREE entry older than this is dropped by the client instead of sent. */
    public static final long FREE_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private SpaceTiming()
    {
    }

    /** How long space reclaimed from a departed client waits before it may be granted again. */
    public static long reclaimQuarantineNanos(final long graceNanos)
    {
        return FREE_MAX_AGE_NANOS + graceNanos;
    }
}
