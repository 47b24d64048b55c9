package io.rdmakv.server.replication;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One {@link PartitionCopier} running on a worker thread of its own (as {@code CopyLoop} runs a region copy): bulk
 * passes start at once; {@link #freezeBegun} queues the delta passes after them; {@link #abort} stops whatever runs
 * and queues the abort. The target primary's move role starts it at a batch's COPY ({@code cluster.MoveRole},
 * docs/growth.md §7); tests also through {@code KvServer#startPartitionCopy}.
 */
public final class PartitionCopy implements MoveCopy
{
    private final PartitionCopier copier;
    private final MoverGrants grants;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "rdmakv-partition-copy");
        t.setDaemon(true);
        return t;
    });
    private final CompletableFuture<PartitionCopier.Result> bulk;

    public PartitionCopy(final PartitionCopier copier, final MoverGrants grants)
    {
        this.copier = copier;
        this.grants = grants;
        bulk = CompletableFuture.supplyAsync(copier::bulk, worker);
    }

    /** The bulk passes' result: {@code BULK} or {@code FAILED}. */
    @Override
    public CompletableFuture<PartitionCopier.Result> bulk()
    {
        return bulk;
    }

    /** A's freeze has begun: passes until the delta, after the bulk passes; {@code FINAL} or {@code FAILED}. */
    @Override
    public CompletableFuture<PartitionCopier.Result> freezeBegun()
    {
        return CompletableFuture.supplyAsync(copier::delta, worker);
    }

    /** Stops the pass under way, then zeroes the target segments and gives back the mover grants: {@code ABORTED}. */
    @Override
    public CompletableFuture<PartitionCopier.Result> abort()
    {
        copier.stop();
        return CompletableFuture.supplyAsync(copier::abort, worker);
    }

    /** After {@code FINAL}, at OPEN: hands the mover grants over to nobody ({@link PartitionCopier#handOver}). */
    @Override
    public CompletableFuture<Long> handOver()
    {
        return CompletableFuture.supplyAsync(copier::handOver, worker);
    }

    @Override
    public long keysCopied()
    {
        return copier.keysCopied();
    }

    @Override
    public long bytesCopied()
    {
        return copier.bytesCopied();
    }

    /** Bytes this copy holds in mover grants now (asked of the control thread). */
    public long moverBytes()
    {
        return grants.heldBy(copier.owner());
    }

    /** Bytes this node's allocator can grant now (asked of the control thread). */
    public long dataAreaFreeBytes()
    {
        return grants.freeBytes();
    }

    /** Stops the copy and frees its buffer; its grants stay (an abort gives them back). */
    @Override
    public void close()
    {
        copier.stop();
        worker.execute(copier::close);
        worker.shutdown();
        try
        {
            worker.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
