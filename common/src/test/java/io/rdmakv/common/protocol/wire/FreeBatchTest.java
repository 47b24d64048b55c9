package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.FreeMessage;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FreeBatchTest
{
    @Test
    void fillsAReceiveBufferSizedMessage()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(MessageHeaderDescriptor.MAX_MESSAGE_LENGTH);
            final FreeBatch batch = new FreeBatch().wrap(buffer, 0).reset(77);
            assertTrue(batch.isEmpty());
            assertEquals(FreeMessage.MAX_ENTRIES, batch.capacity());
            int added = 0;
            while (batch.add(64L * (added + 1), 64 * (1 + added % 5)))
            {
                added++;
            }
            assertEquals(FreeMessage.MAX_ENTRIES, added);
            assertTrue(batch.isFull());
            assertEquals(FreeMessage.lengthFor(added), batch.length());

            final FreeMessage free = (FreeMessage)ControlCodec.decode(buffer, 0, batch.length());
            assertEquals(77, free.requestId());
            assertEquals(added, free.count());
            assertEquals(64L * 339, free.offset(338));
            assertEquals(64 * (1 + 338 % 5), free.length(338));

            batch.reset(78);
            assertEquals(0, batch.count());
            assertTrue(batch.add(4096, 128));
            assertEquals(
                new FreeMessage(78, new long[] {4096}, new int[] {128}), ControlCodec.decode(buffer, 0, batch.length()));
        }
    }

    @Test
    void aSmallerBufferHoldsFewerEntries()
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[100]);
        final FreeBatch batch = new FreeBatch().wrap(buffer, 4).reset(1);
        assertEquals((100 - 4 - 24) / 12, batch.capacity());
        for (int i = 0; i < batch.capacity(); i++)
        {
            assertTrue(batch.add(64, 64));
        }
        assertFalse(batch.add(64, 64));
        assertEquals(FreeMessage.lengthFor(6), batch.length());
        assertEquals(6, ((FreeMessage)ControlCodec.decode(buffer, 4, 96)).count());
        assertThrows(IllegalArgumentException.class, () -> new FreeBatch().wrap(MemorySegment.ofArray(new byte[35]), 0));
    }
}
