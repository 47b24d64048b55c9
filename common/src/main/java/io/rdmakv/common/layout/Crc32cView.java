package io.rdmakv.common.layout;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC-32C over byte ranges of one memory segment, allocation-free after construction.
 *
 * <p>{@link CRC32C#update(ByteBuffer)} runs the hardware-accelerated intrinsic on a direct buffer without
 * copying, but making a {@code ByteBuffer} from a segment allocates. So this class makes its buffer views
 * once, at setup, and afterwards only moves their position and limit. A buffer is indexed by {@code int},
 * so a segment larger than 2 GiB gets overlapping 1 GiB windows, each extended by {@link
 * KvBlockDescriptor#MAX_BLOCK_LENGTH} so that every block lies whole inside one of them; on such a segment
 * one range may be at most that long.
 *
 * <p>Not thread-safe (the views and the {@code CRC32C} are mutable): one instance per thread, like every
 * flyweight. A heap segment works too (its views are heap buffers over the array) unless it is read-only.
 */
public final class Crc32cView
{
    private static final int WINDOW_SHIFT = 30;
    private static final long WINDOW_STRIDE = 1L << WINDOW_SHIFT;

    private final MemorySegment segment;
    private final ByteBuffer[] windows;
    private final long maxRange;
    private final CRC32C crc = new CRC32C();

    public Crc32cView(final MemorySegment segment)
    {
        this.segment = segment;
        final long size = segment.byteSize();
        if (size <= Integer.MAX_VALUE)
        {
            windows = new ByteBuffer[] {segment.asByteBuffer()};
            maxRange = size;
        }
        else
        {
            final int count = (int)((size + WINDOW_STRIDE - 1) >>> WINDOW_SHIFT);
            windows = new ByteBuffer[count];
            for (int i = 0; i < count; i++)
            {
                final long start = (long)i << WINDOW_SHIFT;
                final long length = Math.min(WINDOW_STRIDE + KvBlockDescriptor.MAX_BLOCK_LENGTH, size - start);
                windows[i] = segment.asSlice(start, length).asByteBuffer();
            }
            maxRange = KvBlockDescriptor.MAX_BLOCK_LENGTH;
        }
    }

    public MemorySegment segment()
    {
        return segment;
    }

    /**
     * The CRC-32C of {@code length} bytes at {@code offset}.
     *
     * @throws IndexOutOfBoundsException when the range leaves the segment or, on a segment over 2 GiB, is
     *     longer than a block.
     */
    public int crc32c(final long offset, final int length)
    {
        if (offset < 0 || length < 0 || length > maxRange || offset > segment.byteSize() - length)
        {
            throw new IndexOutOfBoundsException(
                "CRC range [" + offset + ", +" + length + ") outside a segment of " + segment.byteSize() + " bytes");
        }
        final int window = (int)(offset >>> WINDOW_SHIFT);
        final ByteBuffer view = windows.length == 1 ? windows[0] : windows[window];
        final int position = (int)(windows.length == 1 ? offset : offset - ((long)window << WINDOW_SHIFT));
        view.limit(position + length).position(position);
        crc.reset();
        crc.update(view);
        return (int)crc.getValue();
    }
}
