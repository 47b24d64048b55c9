package io.rdmakv.client;

import io.rdmakv.client.internal.Lane;
import io.rdmakv.client.internal.Router;
import io.rdmakv.client.internal.Session;
import io.rdmakv.client.internal.Status;
import io.rdmakv.common.hash.KeyHash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** {@link KvClient#getAll} and the checks of {@link KvClient#putAll}: keys grouped by node, batches per lane. */
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
        final byte[][] values = new byte[k.length][];
        final int[] mine = new int[k.length];
        final List<Integer> single = new ArrayList<>();
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
                readNode(client, node, k, hashes, Arrays.copyOf(mine, count), values, single);
            }
        }
        for (final int i : single)
        {
            values[i] = client.get(k[i]);
        }
        return Arrays.asList(values);
    }

    /** Reads the keys {@code indices} of node {@code node}, a lane's batch at a time, into {@code values}. */
    private static void readNode(final KvClient client, final int node, final byte[][] keys, final long[] hashes,
        final int[] indices, final byte[][] values, final List<Integer> single)
    {
        final Session session = client.batchSession(node);
        session.enter();
        final int rc;
        try
        {
            rc = readBatches(session.lane(), keys, hashes, indices, values, single);
        }
        finally
        {
            session.exit();
        }
        if (rc < 0)
        {
            throw client.batchFailed(session, rc);
        }
    }

    private static int readBatches(final Lane lane, final byte[][] keys, final long[] hashes, final int[] indices,
        final byte[][] values, final List<Integer> single)
    {
        for (int from = 0; from < indices.length; from += Lane.batchSize())
        {
            final int count = Math.min(Lane.batchSize(), indices.length - from);
            for (int j = 0; j < count; j++)
            {
                final int i = indices[from + j];
                lane.batchKey(j, MemorySegment.ofArray(keys[i]), 0, keys[i].length, hashes[i]);
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
                    }
                    case Status.NOT_FOUND -> values[i] = null;
                    default -> single.add(i);
                }
            }
        }
        return Status.OK;
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
}
