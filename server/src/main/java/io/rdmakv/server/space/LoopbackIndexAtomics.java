package io.rdmakv.server.space;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.CloseHelper;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * {@link IndexAtomics} whose compare-and-swap goes through the NIC: an RDMA CAS on the node's own index
 * memory region, over a pair of the node's queue pairs connected to each other, with a completion queue of
 * their own. For devices whose atomic capability is not {@code GLOB} (ConnectX and rxe report {@code HCA}),
 * where a CPU CAS is not atomic against the clients' RDMA CAS on the same word. Synchronous (post, then wait
 * for the completion) and serialised: control path only (departures, the lock sweep, a partition freeze, whose
 * batched CASes go as chains of up to {@link #BATCH}, one doorbell each, with up to {@link #IN_FLIGHT} CASes in
 * flight: chains are posted while the send queue has room and taken as their completions come). Reads stay CPU reads with acquire
 * semantics; an aligned 8-byte read is atomic against RDMA atomics on every device.
 *
 * <p>A failed CAS (the loopback queue pair broke) throws {@link IllegalStateException}; later calls fail too.
 */
public final class LoopbackIndexAtomics implements IndexAtomics
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Compare-and-swaps one chain of {@link #compareAndSwap(long[], long[], long[], long[], int)} posts. */
    public static final int BATCH = 32;
    /**
     * Compare-and-swaps in flight at once in {@link #compareAndSwap(long[], long[], long[], long[], int)}: the
     * requester's send queue depth, and the words of the result buffer (CAS {@code k} of a batch lands in word {@code
     * k % IN_FLIGHT}, which no other CAS in flight uses).
     */
    public static final int IN_FLIGHT = 4 * BATCH;

    private final MemorySegment region;
    private final MemoryRegion index;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment result;
    private final MemoryRegion resultMr;
    private final CompletionQueue cq;
    private final QueuePair requester;
    private final QueuePair responder;
    private final SendWorkRequests cas = SendWorkRequests.allocate(BATCH, 1);
    /** Completions polled at once (every CAS is signaled). */
    private final WorkCompletions completions = WorkCompletions.allocate(BATCH);
    private long nextWrId = 1;
    private boolean closed;

    /**
     * @param region the whole region (header at 0), for reads
     * @param index  the registered header-and-index memory region (starts at the region's first byte; must
     *               allow REMOTE_ATOMIC)
     */
    public LoopbackIndexAtomics(final ProtectionDomain pd, final MemorySegment region, final MemoryRegion index)
    {
        this.region = region;
        this.index = index;
        result = arena.allocate((long)IN_FLIGHT * Long.BYTES, 64);
        MemoryRegion mr = null;
        CompletionQueue createdCq = null;
        QueuePair a = null;
        QueuePair b = null;
        try
        {
            mr = pd.registerMemory(result, AccessFlags.LOCAL_WRITE);
            // every CAS in flight signaled, and room for those of a call that timed out
            createdCq = pd.context().createCompletionQueue(2 * IN_FLIGHT);
            a = pd.createQueuePair(QueuePairConfig.of(createdCq, IN_FLIGHT, 1));
            b = pd.createQueuePair(QueuePairConfig.of(createdCq, 4, 1));
            a.modifyToInit(ConnectOptions.DEFAULT.withAccessFlags(0));
            b.modifyToInit(ConnectOptions.DEFAULT.withAccessFlags(AccessFlags.REMOTE_ATOMIC));
            a.modifyToRtr(b.localEndpoint(), ConnectOptions.DEFAULT);
            b.modifyToRtr(a.localEndpoint(), ConnectOptions.DEFAULT);
            a.modifyToRts(ConnectOptions.DEFAULT);
            b.modifyToRts(ConnectOptions.DEFAULT);
        }
        catch (final RuntimeException e)
        {
            CloseHelper.quietCloseAll(a, b, createdCq, mr);
            cas.close();
            completions.close();
            arena.close();
            throw new IllegalStateException("cannot connect the loopback queue pair for index atomics: " +
                e.getMessage(), e);
        }
        resultMr = mr;
        cq = createdCq;
        requester = a;
        responder = b;
    }

    /**
     * Whether a node must change index words through the NIC: on an {@code ibverbs} device whose atomics are
     * not {@code GLOB}, a CPU CAS is not atomic against the clients' RDMA CAS. The {@code tcp} provider
     * executes remote atomics as CPU CAS on the same memory, so the CPU's CAS is right there.
     */
    public static boolean neededFor(final String provider, final String atomicCapability)
    {
        return Providers.IBVERBS.equals(provider) && !"GLOB".equals(atomicCapability);
    }

    @Override
    public synchronized long compareAndSwap(final long regionOffset, final long expected, final long swap)
    {
        if (closed)
        {
            throw new IllegalStateException("loopback index atomics are closed");
        }
        check(regionOffset);
        final long wrId = nextWrId++;
        cas.at(0).compareAndSwap(resultMr.address(), resultMr.lkey(), index.address() + regionOffset, index.rkey(),
            expected, swap).wrId(wrId).sendFlags(SendFlags.SIGNALED).next(null);
        final int rc = requester.postSend(cas.at(0));
        if (rc != 0)
        {
            throw new IllegalStateException("loopback CAS at " + regionOffset + " not posted: errno " + rc);
        }
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true)
        {
            final long left = deadline - System.nanoTime();
            final int n = left > 0 ? cq.await(completions, left) : 0;
            if (n < 0 || left <= 0)
            {
                throw new IllegalStateException("loopback CAS at " + regionOffset + ": no completion within " +
                    TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS) + " ms" + (n < 0 ? " (errno " + -n + ")" : ""));
            }
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = completions.at(i);
                if (wc.wrId() != wrId)
                {
                    continue; // a completion of an earlier CAS that timed out
                }
                if (!wc.isSuccess())
                {
                    throw new IllegalStateException("loopback CAS at " + regionOffset + " failed: " + wc.statusEnum());
                }
                return (long)LONG.getAcquire(result, 0L);
            }
        }
    }

    @Override
    public synchronized void compareAndSwap(final long[] regionOffsets, final long[] expected, final long[] swaps,
        final long[] found, final int count)
    {
        if (closed)
        {
            throw new IllegalStateException("loopback index atomics are closed");
        }
        final long firstWrId = nextWrId;
        nextWrId += count;
        int posted = 0;
        int taken = 0;
        while (taken < count)
        {
            while (posted < count && posted + Math.min(BATCH, count - posted) - taken <= IN_FLIGHT)
            {
                final int n = Math.min(BATCH, count - posted);
                for (int k = 0; k < n; k++)
                {
                    final int i = posted + k;
                    final long regionOffset = regionOffsets[i];
                    check(regionOffset);
                    cas.at(k).compareAndSwap(resultMr.address() + (long)(i % IN_FLIGHT) * Long.BYTES,
                        resultMr.lkey(), index.address() + regionOffset, index.rkey(), expected[i], swaps[i])
                        .wrId(firstWrId + i).sendFlags(SendFlags.SIGNALED).next(k + 1 < n ? cas.at(k + 1) : null);
                }
                final int rc = requester.postSend(cas.at(0));
                if (rc != 0)
                {
                    throw new IllegalStateException("a chain of " + n + " loopback CASes not posted: errno " + rc);
                }
                posted += n;
            }
            final int done = await(firstWrId, taken, posted);
            for (int i = taken; i < done; i++)
            {
                found[i] = (long)LONG.getAcquire(result, (long)(i % IN_FLIGHT) * Long.BYTES);
            }
            taken = done;
        }
    }

    /**
     * Waits for at least one completion of the work requests {@code firstWrId + taken .. firstWrId + posted - 1}
     * (the CASes in flight) and returns how many of the batch have completed: a send queue completes in posting order,
     * so those are the first ones. Fails after {@link #TIMEOUT_NANOS} without one.
     */
    private int await(final long firstWrId, final int taken, final int posted)
    {
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        int done = taken;
        while (done == taken)
        {
            final long left = deadline - System.nanoTime();
            final int got = left > 0 ? cq.await(completions, left) : 0;
            if (got < 0 || left <= 0)
            {
                throw new IllegalStateException("a batch of loopback CASes: " + taken + " of " + posted + " posted " +
                    "completed within " + TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS) + " ms" +
                    (got < 0 ? " (errno " + -got + ")" : ""));
            }
            for (int i = 0; i < got; i++)
            {
                final WorkCompletion wc = completions.at(i);
                if (wc.wrId() < firstWrId + taken || wc.wrId() >= firstWrId + posted)
                {
                    continue; // a completion of an earlier CAS that timed out
                }
                if (!wc.isSuccess())
                {
                    throw new IllegalStateException("loopback CAS " + (wc.wrId() - firstWrId) + " of a batch failed: " +
                        wc.statusEnum());
                }
                done++;
            }
        }
        return done;
    }

    private void check(final long regionOffset)
    {
        if ((regionOffset & 7) != 0 || regionOffset < 0 || regionOffset > index.length() - Long.BYTES)
        {
            throw new IllegalArgumentException("index word at " + regionOffset + ": not an aligned word of the " +
                index.length() + "-byte index memory region");
        }
    }

    @Override
    public long get(final long regionOffset)
    {
        return (long)LONG.getAcquire(region, regionOffset);
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        CloseHelper.quietCloseAll(requester, responder, cq, resultMr);
        cas.close();
        completions.close();
        arena.close();
    }
}
