package io.rdmakv.testsupport.linearizability;

/** The operations on one key-value register that a history can record. */
public enum OpKind
{
    /** Read the value: returns it, or absent. */
    GET,
    /** Insert or update the value: returns nothing. */
    PUT,
    /** Remove the value: returns whether one was present. */
    DELETE,
    /** Write a value if the current one equals an expected value (or is absent): returns whether it did. */
    COMPARE_AND_SET
}
