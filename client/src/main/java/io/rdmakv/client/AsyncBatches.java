package io.rdmakv.client;

import io.rdmakv.client.internal.op.Lane;
import io.rdmakv.common.hash.KeyHash;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * {@link KvClient#getAsync} and {@link KvClient#putAsync}: requests queue up and a few worker threads take
 * them in batches (whatever is waiting, up to a lane's batch) and run each batch's GETs with one
 * {@link KvClient#getAll} and its PUTs with one {@link KvClient#putAll} per node, so that many operations in
 * flight share doorbells instead of each taking a thread and its own round trips.
 * <ul>
 * <li>A GET batch that fails is retried key by key, so that one key's failure (its node down) fails only its
 *     own future (a GET may be repeated).</li>
 * <li>A PUT batch fails only the futures of its node, with the exception a single PUT would have thrown (the
 *     write may or may not have happened); PUTs to other nodes are unaffected. A PUT is not repeated: a
 *     write seen, overwritten by another writer, then written again would not be one operation.</li>
 * <li>Two PUTs of one key in flight together are concurrent operations: either may win.</li>
 * </ul>
 */
final class AsyncBatches implements AutoCloseable
{
    /** A queued operation: a GET when {@code value} is null, else a PUT. */
    private record Request(byte[] key, byte[] value, CompletableFuture<byte[]> future)
    {
    }

    private final KvClient client;
    private final BlockingQueue<Request> queue = new LinkedBlockingQueue<>();
    private final Thread[] workers;
    private volatile boolean closed;

    AsyncBatches(final KvClient client, final int threads)
    {
        this.client = client;
        workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            workers[i] = Thread.ofPlatform().daemon().name("rdmakv-async-batch-" + (i + 1)).start(this::work);
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
        return queued(new Request(key, null, future));
    }

    CompletableFuture<Void> put(final byte[] key, final byte[] value)
    {
        final CompletableFuture<byte[]> future = new CompletableFuture<>();
        final CompletableFuture<Void> done = future.thenApply(v -> null);
        if (key.length > client.maxKeyLength())
        {
            future.completeExceptionally(Failures.keyTooLarge(key.length, client.maxKeyLength()));
        }
        else if (value.length > client.maxValueLength())
        {
            future.completeExceptionally(Failures.valueTooLarge(value.length, client.maxValueLength()));
        }
        else
        {
            queued(new Request(key, value, future));
        }
        return done;
    }

    private CompletableFuture<byte[]> queued(final Request request)
    {
        queue.add(request);
        if (closed)
        {
            failRemaining();
        }
        return request.future;
    }

    private void work()
    {
        final List<Request> batch = new ArrayList<>(Lane.batchSize());
        final List<Request> gets = new ArrayList<>(Lane.batchSize());
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
                if (r.value == null)
                {
                    gets.add(r);
                }
            }
            if (gets.size() < batch.size())
            {
                putAll(batch);
            }
            if (!gets.isEmpty())
            {
                getAll(gets);
            }
            batch.clear();
            gets.clear();
        }
        failRemaining();
    }

    private void getAll(final List<Request> batch)
    {
        final List<byte[]> keys = new ArrayList<>(batch.size());
        for (final Request r : batch)
        {
            keys.add(r.key);
        }
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

    /** The PUTs of {@code batch}, one {@link KvClient#putAll} per node. */
    private void putAll(final List<Request> batch)
    {
        final int nodes = client.router().nodeCount();
        for (int node = 0; node < nodes; node++)
        {
            final Map<byte[], byte[]> entries = new LinkedHashMap<>();
            final List<Request> mine = new ArrayList<>();
            for (final Request r : batch)
            {
                if (r.value != null && client.router().nodeOf(KeyHash.hash(r.key)) == node)
                {
                    entries.put(r.key, r.value);
                    mine.add(r);
                }
            }
            if (mine.isEmpty())
            {
                continue;
            }
            try
            {
                client.putAll(entries);
            }
            catch (final RuntimeException e)
            {
                mine.forEach(r -> r.future.completeExceptionally(e));
                continue;
            }
            mine.forEach(r -> r.future.complete(null));
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
