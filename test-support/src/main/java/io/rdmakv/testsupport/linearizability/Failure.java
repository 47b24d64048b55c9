package io.rdmakv.testsupport.linearizability;

import java.util.OptionalLong;

/**
 * A failed search and the history it ran on, for the report.
 *
 * @param initial  the register's initial value
 * @param ops      the operations the search ran on, in invocation order
 * @param shown    the operations as recorded, index for index (a prefix turns running ones into unknown ones)
 * @param result   what it found
 * @param cut      the index in {@code shown} of the operation whose response ends the prefix, or -1 for a whole history
 * @param shortest whether the prefix is known to be the shortest that fails
 */
record Failure(OptionalLong initial, Op[] ops, Op[] shown, Search.Result result, int cut, boolean shortest)
{
}
