package io.rdmakv.client;

/**
 * A block the key's slot points to fails its checksum again and again while the slot does not change (or
 * the slot points outside the node's data area): the stored bytes are damaged. Its contents are never
 * returned. A GET keeps failing so until a PUT or DELETE of the key has the node repair the slot; a PUT or
 * DELETE fails so only when the node refused (the slot is not provably this key's: the message says why).
 */
public class CorruptedBlockException extends KvException
{
    public CorruptedBlockException(final String message)
    {
        super(message);
    }
}
