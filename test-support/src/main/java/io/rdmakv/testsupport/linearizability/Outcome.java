package io.rdmakv.testsupport.linearizability;

/**
 * What an operation returned, where it returns a flag: {@link OpKind#DELETE} (whether a value was
 * present) and {@link OpKind#COMPARE_AND_SET} (whether it wrote). {@link OpKind#GET} and
 * {@link OpKind#PUT} complete with {@link #OK}.
 *
 * <p>{@link #UNKNOWN} means the result places no constraint on the history. Whether the operation
 * took effect at all is a different question, answered by its response time: an operation with
 * {@link Op#INFINITY} as response time may or may not have taken effect.
 */
public enum Outcome
{
    /** Completed; no flag to report (get, put). */
    OK,
    /** The flag was true: a value was present (delete) or the write happened (compare-and-set). */
    TRUE,
    /** The flag was false: nothing was present (delete) or the current value differed (compare-and-set). */
    FALSE,
    /** The result is not known and constrains nothing. */
    UNKNOWN;

    /** The outcome that reports {@code flag}. */
    public static Outcome of(final boolean flag)
    {
        return flag ? TRUE : FALSE;
    }
}
