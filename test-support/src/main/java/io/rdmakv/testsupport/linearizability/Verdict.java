package io.rdmakv.testsupport.linearizability;

/** What a check concluded. */
public enum Verdict
{
    /** A linearization exists. */
    LINEARIZABLE,
    /** No linearization exists: the history shows a consistency violation. */
    NOT_LINEARIZABLE,
    /** The check ran out of its {@link Budget} before deciding. */
    UNKNOWN
}
