package io.rdmakv.common.layout;

/**
 * The header of a group's first bucket ({@link BucketDescriptor}): zero, or the <b>MOVED</b> mark a node stores
 * in every group of a partition's segment once that partition has left its replica group (docs/growth.md §6).
 *
 * <pre>
 *  63   62                         32 31                                            0
 * +-----+------------------------------+---------------------------------------------+
 * |MOVED|        reserved (zero)       |  switch epoch, low 32 bits                  |
 * +-----+------------------------------+---------------------------------------------+
 * </pre>
 *
 * Clients never CAS it; each node stores it in its own memory with a plain 8-byte store, and readers get it
 * with the group READ they already do. A client that sees it in either candidate group discards what it read
 * and follows the map (the node that marked has applied the map of the switch epoch). Static and
 * allocation-free.
 */
public final class MovedHeader
{
    /** The MOVED flag. */
    public static final long MOVED = 1L << 63;
    /** The bits that must be zero in a header. */
    public static final long RESERVED_MASK = ~MOVED & ~0xFFFF_FFFFL;

    private MovedHeader()
    {
    }

    /** The header that marks a group moved at map epoch {@code switchEpoch} (its low 32 bits). */
    public static long moved(final long switchEpoch)
    {
        return MOVED | (switchEpoch & 0xFFFF_FFFFL);
    }

    /** Whether {@code header} marks its group moved. */
    public static boolean isMoved(final long header)
    {
        return header < 0;
    }

    /** The low 32 bits of the switch epoch a MOVED header names. */
    public static long switchEpochLow(final long header)
    {
        return header & 0xFFFF_FFFFL;
    }
}
