package io.rdmakv.ycsb;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * YCSB's key as UTF-8 in a segment of exactly its length, without allocating for an ASCII key (YCSB's
 * keys are {@code user} and digits): the bytes go into one reused array, and the segment of each length is
 * made once. A key with other characters is encoded the allocating way. Not thread-safe: one per binding
 * instance.
 */
final class KeyBuffer
{
    private byte[] bytes = new byte[64];
    private MemorySegment[] slices = new MemorySegment[bytes.length + 1];

    MemorySegment of(final String key)
    {
        final int n = key.length();
        if (n > bytes.length)
        {
            bytes = new byte[Math.max(n, bytes.length * 2)];
            slices = new MemorySegment[bytes.length + 1];
        }
        for (int i = 0; i < n; i++)
        {
            final char c = key.charAt(i);
            if (c >= 0x80)
            {
                return MemorySegment.ofArray(key.getBytes(StandardCharsets.UTF_8));
            }
            bytes[i] = (byte)c;
        }
        MemorySegment slice = slices[n];
        if (slice == null)
        {
            slice = MemorySegment.ofArray(bytes).asSlice(0, n);
            slices[n] = slice;
        }
        return slice;
    }
}
