package io.rdmakv.client;

/**
 * A block the key's slot points to fails its checksum again and again while the slot does not change:
 * the stored bytes are damaged. Its contents are never returned.
 */
public class CorruptedBlockException extends KvException
{
    public CorruptedBlockException(final String message)
    {
        super(message);
    }
}
