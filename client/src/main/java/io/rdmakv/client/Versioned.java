package io.rdmakv.client;

/**
 * A value and the version it had when read: pass the version to
 * {@link KvClient#putIfVersion(byte[], byte[], long)} to write only if nobody wrote the key since.
 * Versions are opaque; {@link KvClient#ABSENT} is the version of a key that does not exist.
 */
public record Versioned(byte[] value, long version)
{
}
