package io.rdmakv.testsupport.linearizability;

import java.util.Objects;

/**
 * An operation on one key of a multi-key store.
 *
 * @param key the key; it must have value equality ({@code String}, {@code Long}, a hex string of the key bytes)
 * @param op  the operation on that key's register
 * @param <K> the key type
 */
public record KeyedOp<K>(K key, Op op)
{
    /** Checks for nulls. */
    public KeyedOp
    {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(op, "op");
    }
}
