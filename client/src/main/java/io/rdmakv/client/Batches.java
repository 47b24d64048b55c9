package io.rdmakv.client;

import io.rdmakv.client.internal.op.Lane;
import io.rdmakv.client.internal.session.Router;
import io.rdmakv.client.internal.session.Session;
import io.rdmakv.peer.Status;
import io.rdmakv.client.metrics.OperationRecorder;
import io.rdmakv.client.metrics.Operations;
import io.rdmakv.common.hash.KeyHash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** {@link KvClient#getAll} and {@link KvClient#putAll}: keys grouped by node, batches per lane. */
final class Batches
{
    private Batches()
    {
    }

    static List<byte[]> getAll(final KvClient client, final Collection<byte[]> keys)
    {
        final byte[][] k = keys.toArray(new byte[0][]);
        final long[] hashes = new long[k.length];
        for (int i = 0; i < k.length; i++)
        {
            Objects.requireNonNull(k[i], "getAll: key " + i + " is null");
            if (k[i].length > client.maxKeyLength())
            {
                throw Failures.keyTooLarge(k[i].length, client.maxKeyLength());
            }
            hashes[i] = KeyHash.hash(k[i]);
        }
        final Router router = client.router();
        final long[] segments = segments(router, hashes);
        final byte[][] values = new byte[k.length][];
        final int[] mine = new int[k.length];
        final List<Integer> single = new ArrayList<>();
        try
        {
            for (int node = 0; node < router.nodeCount(); node++)
            {
                int count = 0;
                for (int i = 0; i < k.length; i++)
                {
                    if (router.nodeOf(hashes[i]) == node)
                    {
                        mine[count++] = i;
                    }
                }
                if (count > 0)
                {
                    readNode(client, router, node, k, hashes, segments, Arrays.copyOf(mine, count), values, single);
                }
            }
            for (int i = 0; i < k.length; i++)
            {
                if (router.nodeOf(hashes[i]) == Router.LOST)
                {
                    single.add(i);
                }
            }
        }
        catch (final KvConnectionException | KvTimeoutException e)
        {
            if (!router.replicated())
            {
                throw e;
            }
            // the cluster is changing: each key on its own, which follows the map and retries
            single.clear();
            for (int i = 0; i < k.length; i++)
            {
                single.add(i);
            }
        }
        for (final int i : single)
        {
            values[i] = client.get(k[i]);
        }
        return Arrays.asList(values);
    }

    /** Reads the keys {@code indices} of node {@code node}, a lane's batch at a time, into {@code values}. */
    private static void readNode(final KvClient client, final Router router, final int node, final byte[][] keys,
        final long[] hashes, final long[] segments, final int[] indices, final byte[][] values,
        final List<Integer> single)
    {
        final Session session = client.batchSession(router, node);
        session.enter(router.map().epoch());
        if (client.router() != router)
        {
            // the map moved (see KvClient#execute): these keys run as single GETs, on the new map
            session.exit();
            for (final int i : indices)
            {
                single.add(i);
            }
            return;
        }
        final int rc;
        try
        {
            rc = readBatches(client, router, session, keys, hashes, segments, indices, values, single);
        }
        finally
        {
            session.exit();
        }
        if (rc < 0)
        {
            throw client.batchFailed(session, rc, "getAll");
        }
    }

    private static int readBatches(final KvClient client, final Router router, final Session session,
        final byte[][] keys, final long[] hashes, final long[] segments, final int[] indices, final byte[][] values,
        final List<Integer> single)
    {
        final Lane lane = session.lane();
        for (int from = 0; from < indices.length; from += Lane.batchSize())
        {
            final OperationRecorder recorder = client.batchRecorder(session);
            int found = 0;
            int absent = 0;
            final int count = Math.min(Lane.batchSize(), indices.length - from);
            for (int j = 0; j < count; j++)
            {
                final int i = indices[from + j];
                lane.batchKey(j, MemorySegment.ofArray(keys[i]), 0, keys[i].length, hashes[i], segments[i],
                    router.versionSalt(router.partitionOf(hashes[i])));
            }
            final int rc = lane.getBatch(count);
            if (rc != Status.OK)
            {
                return rc;
            }
            for (int j = 0; j < count; j++)
            {
                final int i = indices[from + j];
                switch (lane.batchOutcome(j))
                {
                    case Status.OK ->
                    {
                        final byte[] value = new byte[lane.batchValueLength(j)];
                        MemorySegment.copy(lane.batchValueSegment(j), ValueLayout.JAVA_BYTE, lane.batchValueOffset(j),
                            value, 0, value.length);
                        values[i] = value;
                        found++;
                    }
                    case Status.NOT_FOUND ->
                    {
                        values[i] = null;
                        absent++;
                    }
                    default -> single.add(i);
                }
            }
            if (recorder != null)
            {
                recorder.endBatch(Operations.GET, found, absent);
            }
        }
        return Status.OK;
    }

    /** {@link KvClient#putAll}: checks every entry, then writes them per node a batch at a time. */
    static void putAll(final KvClient client, final Map<byte[], byte[]> entries)
    {
        checkEntries(entries, client.maxKeyLength(), client.maxValueLength());
        final int n = entries.size();
        final byte[][] keys = new byte[n][];
        final byte[][] values = new byte[n][];
        final long[] hashes = new long[n];
        int e = 0;
        for (final Map.Entry<byte[], byte[]> entry : entries.entrySet())
        {
            keys[e] = entry.getKey();
            values[e] = entry.getValue();
            hashes[e] = KeyHash.hash(keys[e]);
            e++;
        }
        final Router router = client.router();
        if (router.replicated())
        {
            // a batch's CASes go to the primary only: a replicated key commits along its chain, one by one
            for (int i = 0; i < n; i++)
            {
                client.put(keys[i], values[i]);
            }
            return;
        }
        final int[] mine = new int[n];
        final List<Integer> single = new ArrayList<>();
        for (int node = 0; node < router.nodeCount(); node++)
        {
            int count = 0;
            for (int i = 0; i < n; i++)
            {
                if (router.nodeOf(hashes[i]) != node)
                {
                    continue;
                }
                if (values[i].length > Lane.maxBatchValueLength(keys[i].length))
                {
                    single.add(i);
                }
                else
                {
                    mine[count++] = i;
                }
            }
            if (count > 0)
            {
                writeNode(client, router, node, keys, values, hashes, segments(router, hashes), Arrays.copyOf(mine, count),
                    single);
            }
        }
        for (final int i : single)
        {
            client.put(keys[i], values[i]);
        }
    }

    /** Writes the entries {@code indices} of node {@code node}, a lane's batch at a time; the unsettled to {@code single}. */
    private static void writeNode(final KvClient client, final Router router, final int node, final byte[][] keys,
        final byte[][] values, final long[] hashes, final long[] segments, final int[] indices, final List<Integer> single)
    {
        final Session session = client.batchSession(router, node);
        session.enter(router.map().epoch()); // unreplicated only: its map never changes
        int rc = Status.OK;
        try
        {
            final Lane lane = session.lane();
            for (int from = 0; from < indices.length && rc >= 0; )
            {
                final int count = Math.min(Lane.batchSize(), indices.length - from);
                for (int j = 0; j < count; j++)
                {
                    final int i = indices[from + j];
                    lane.batchEntry(j, MemorySegment.ofArray(keys[i]), 0, keys[i].length, hashes[i], segments[i],
                        MemorySegment.ofArray(values[i]), 0, values[i].length);
                }
                final OperationRecorder recorder = client.batchRecorder(session);
                rc = lane.putBatch(count);
                int written = 0;
                for (int j = 0; j < rc; j++)
                {
                    if (lane.putBatchOutcome(j) == Status.OK)
                    {
                        written++;
                    }
                    else
                    {
                        single.add(indices[from + j]);
                    }
                }
                if (recorder != null)
                {
                    recorder.endBatch(Operations.PUT, written, 0);
                }
                from += Math.max(rc, 0);
            }
        }
        finally
        {
            session.exit();
        }
        if (rc < 0)
        {
            throw client.batchFailed(session, rc, "putAll");
        }
    }

    /** Every key and value present and within the node's limits, or the exception a single PUT would throw. */
    static void checkEntries(final Map<byte[], byte[]> entries, final int maxKeyLength, final int maxValueLength)
    {
        int n = 0;
        for (final Map.Entry<byte[], byte[]> e : entries.entrySet())
        {
            Objects.requireNonNull(e.getKey(), "putAll: key of entry " + n + " is null");
            Objects.requireNonNull(e.getValue(), "putAll: value of entry " + n + " is null");
            if (e.getKey().length > maxKeyLength)
            {
                throw Failures.keyTooLarge(e.getKey().length, maxKeyLength);
            }
            if (e.getValue().length > maxValueLength)
            {
                throw Failures.valueTooLarge(e.getValue().length, maxValueLength);
            }
            n++;
        }
    }

    /** Each key's partition's index segment under {@code router}'s map ({@link Router#segmentOf}). */
    private static long[] segments(final Router router, final long[] hashes)
    {
        final long[] segments = new long[hashes.length];
        for (int i = 0; i < hashes.length; i++)
        {
            segments[i] = router.segmentOf(router.partitionOf(hashes[i]));
        }
        return segments;
    }
}
