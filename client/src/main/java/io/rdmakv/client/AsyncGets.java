package io.rdmakv.client;

import io.rdmakv.client.internal.Lane;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * {@link KvClient#getAsync}: requests queue up and a few worker threads take them in batches (whatever is
 * waiting, up to a lane's batch) and read each batch with {@link KvClient#getAll}, so that many GETs in
 * flight share doorbells instead of each taking a thread and its own round trips. A batch that fails is
 * retried key by key, so that one key's failure (its node down) fails only its own future.
 */
final class AsyncGets implements AutoCloseable
{
    private record Request(byte[] key, CompletableFuture<byte[]> future)
    {
    }

    private final KvClient client;
    private final BlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final Thread[] workers;
    private volatile boolean closed;

    AsyncGets(final KvClient client, final int threads)
    {
        this.client = client;
        workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            workers[i] = Thread.ofPlatform().daemon().name("rdmakv-async-get-" + (i + 1)).start(this::work);
        }
    }

    CompletableFuture<byte[]> get(final byte[] key)
    {
        final CompletableFuture<byte[]> future = new CompletableFuture<>();
        if (key.length > client.maxKeyLength())
        {
            future.completeExceptionally(Failures.keyTooLarge(key.length, client.maxKeyLength()));
            return future;
        }
        queue.add(new Request(key, future));
        if (closed)
        {
            failRemaining();
        }
        return future;
    }

    private void work()
    {
        final List<Request> batch = new ArrayList<>(Lane.batchSize());
        final List<byte[]> keys = new ArrayList<>(Lane.batchSize());
        while (!closed)
        {
            try
            {
                batch.add(queue.take());
            }
            catch (final InterruptedException e)
            {
                break;
            }
            queue.drainTo(batch, Lane.batchSize() - 1);
            for (final Request r : batch)
            {
                keys.add(r.key);
            }
            complete(batch, keys);
            batch.clear();
            keys.clear();
        }
        failRemaining();
    }

    private void complete(final List<Request> batch, final List<byte[]> keys)
    {
        final List<byte[]> values;
        try
        {
            values = client.getAll(keys);
        }
        catch (final RuntimeException e)
        {
            for (final Request r : batch)
            {
                try
                {
                    r.future.complete(client.get(r.key));
                }
                catch (final RuntimeException single)
                {
                    r.future.completeExceptionally(single);
                }
            }
            return;
        }
        for (int i = 0; i < batch.size(); i++)
        {
            batch.get(i).future.complete(values.get(i));
        }
    }

    private void failRemaining()
    {
        Request r;
        while ((r = queue.poll()) != null)
        {
            r.future.completeExceptionally(new KvConnectionException("client is closed"));
        }
    }

    @Override
    public void close()
    {
        closed = true;
        for (final Thread w : workers)
        {
            w.interrupt();
        }
        failRemaining();
    }
}
