package io.rdmakv.verbs;

/**
 * A type-2 memory window ({@code struct ibv_mw}, {@code IBV_MW_TYPE_2}): remote access to a range of a
 * {@link MemoryRegion} registered with {@link AccessFlags#MW_BIND}, granted to one queue pair only.
 *
 * <p>Life: {@link ProtectionDomain#allocMemoryWindow()} allocates it unbound (it grants nothing). A
 * {@link SendWorkRequest#bindMemoryWindow bind} posted on a queue pair grants that queue pair's peer the
 * bind's access over the bind's range, under the bind's rkey; a {@link SendWorkRequest#localInvalidate
 * local invalidate} of that rkey takes the grant back, after which the window may be bound again, with a
 * new tag ({@link #nextRkey}). A type-2 window must be unbound (freshly allocated or invalidated) to be
 * bound: binding a bound window fails with {@link WcStatus#MW_BIND_ERR} (IBA o10-37.2.30). A remote
 * access through the window from another queue pair, outside its range, beyond its access, with a stale
 * tag or after invalidation fails exactly as a bad rkey does: {@link WcStatus#REM_ACCESS_ERR} on the
 * requester.
 */
public interface MemoryWindow extends AutoCloseable
{
    /** Mask of the rkey's tag: the low 8 bits, the part the consumer chooses on every bind. */
    int TAG_MASK = 0xff;

    ProtectionDomain protectionDomain();

    /**
     * The rkey of the last bind posted on the window ({@link SendWorkRequest#bindMemoryWindow}'s
     * {@code newRkey}), or the one it was allocated with before any bind. The next bind's new rkey should
     * be {@link #nextRkey nextRkey(rkey())}.
     */
    int rkey();

    /**
     * Deallocates the window ({@code ibv_dealloc_mw}); allowed while it is bound: the grant ends with it.
     * Idempotent.
     */
    @Override
    void close();

    /** {@code rkey} with its tag (low 8 bits) incremented, wrapping within the tag, as {@code ibv_inc_rkey}. */
    static int nextRkey(final int rkey)
    {
        return (rkey & ~TAG_MASK) | ((rkey + 1) & TAG_MASK);
    }
}
