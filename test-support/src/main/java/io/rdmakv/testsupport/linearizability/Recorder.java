package io.rdmakv.testsupport.linearizability;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An append-only log that many threads write into cheaply: each thread appends to its own list (an
 * uncontended lock), and a snapshot merges them. The lock is only there so that a snapshot taken
 * while threads still record sees whole entries.
 */
final class Recorder<T>
{
    private final Queue<List<T>> buffers = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<List<T>> local = ThreadLocal.withInitial(this::newBuffer);

    void add(final T item)
    {
        final List<T> buffer = local.get();
        synchronized (buffer)
        {
            buffer.add(item);
        }
    }

    /** Everything recorded so far, each thread's entries in the order it recorded them. */
    List<T> snapshot()
    {
        final List<T> all = new ArrayList<>();
        for (final List<T> buffer : buffers)
        {
            synchronized (buffer)
            {
                all.addAll(buffer);
            }
        }
        return all;
    }

    private List<T> newBuffer()
    {
        final List<T> buffer = new ArrayList<>(1024);
        buffers.add(buffer);
        return buffer;
    }
}
