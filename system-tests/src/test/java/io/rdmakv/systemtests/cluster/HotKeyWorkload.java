package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.testsupport.linearizability.KeyedHistory;
import io.rdmakv.testsupport.linearizability.Op;
import io.rdmakv.testsupport.linearizability.Outcome;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads on a few hot keys doing GET 40%, PUT of unique values 25%, compare-and-set 20% (from the version the
 * thread last read) and DELETE 15%, every call recorded in a {@link KeyedHistory}: a call that threw is recorded
 * with its outcome unknown (it may or may not have taken effect), a DELETE's "existed" as unknown too (a DELETE
 * run again after a lost connection may report false for a key it deleted). Runs until {@link #stop()}.
 */
public final class HotKeyWorkload
{
    private final KvClient client;
    private final byte[][] keyBytes;
    private final int keys;
    public final KeyedHistory<Integer> history = new KeyedHistory<>();
    final long origin = System.nanoTime();
    private final long originWallMs = System.currentTimeMillis();
    private final AtomicLong lastSuccess = new AtomicLong(System.nanoTime());
    private final AtomicLong longestGap = new AtomicLong();
    private final List<String> timeline = new ArrayList<>();
    /** Per operation (by its invocation time), the client's map epoch when it began and when it ended. */
    private final Map<Long, String> epochs = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean stopped;

    HotKeyWorkload(final KvClient client, final String prefix, final int keys)
    {
        this(client, java.util.stream.IntStream.range(0, keys).mapToObj(k -> (prefix + k).getBytes()).toList());
    }

    /** A workload on exactly {@code keys} (key {@code i} of the history is {@code keys.get(i)}). */
    public HotKeyWorkload(final KvClient client, final List<byte[]> keys)
    {
        this.client = client;
        this.keyBytes = keys.toArray(new byte[0][]);
        this.keys = keyBytes.length;
    }

    byte[] key(final int key)
    {
        return keyBytes[key];
    }

    public void stop()
    {
        stopped = true;
    }

    public synchronized void note(final String event)
    {
        timeline.add(String.format("%9.3f s (%tT.%<tL) %s", (System.nanoTime() - origin) / 1e9, System.currentTimeMillis(), event));
        System.out.println("[workload] " + timeline.getLast());
    }

    public synchronized List<String> timeline()
    {
        return List.copyOf(timeline);
    }

    /** The longest time without any successful operation, in ms. */
    public long longestGapMs()
    {
        return longestGap.get() / 1_000_000;
    }

    public void run(final int process)
    {
        final SplittableRandom random = new SplittableRandom(7000 + process);
        final Versioned[] lastRead = new Versioned[keys];
        for (int i = 0; !stopped; i++)
        {
            LockSupport.parkNanos(2_000_000);
            final int key = random.nextInt(keys);
            final byte[] keyBytes = key(key);
            final long value = ((long)(process + 1) << 40) | i;
            final int dice = random.nextInt(100);
            final long epochBefore = client.clusterMap().epoch();
            final long invoke = history.invoke();
            epochs.put(invoke, " e" + epochBefore);
            if (dice < 40)
            {
                try
                {
                    final Versioned v = client.getVersioned(keyBytes);
                    lastRead[key] = v;
                    history.record(key, Op.get(process, invoke, history.now(),
                        v == null ? OptionalLong.empty() : OptionalLong.of(decode(v.value()))));
                    epochs.merge(invoke, "->" + client.clusterMap().epoch(), String::concat);
                    succeeded();
                }
                catch (final RuntimeException e)
                {
                    // a read that failed constrains nothing
                }
            }
            else if (dice < 65)
            {
                record(key, Op.put(process, value, invoke, Op.INFINITY), () ->
                {
                    client.put(keyBytes, encode(value, random));
                    return Op.put(process, value, invoke, history.now());
                });
            }
            else if (dice < 80)
            {
                record(key, Op.delete(process, invoke, Op.INFINITY, Outcome.UNKNOWN), () ->
                {
                    client.delete(keyBytes);
                    return Op.delete(process, invoke, history.now(), Outcome.UNKNOWN);
                });
            }
            else
            {
                final Versioned seen = lastRead[key];
                final OptionalLong expected = seen == null ? OptionalLong.empty() : OptionalLong.of(decode(seen.value()));
                record(key, Op.compareAndSet(process, expected, value, invoke, Op.INFINITY, Outcome.UNKNOWN), () ->
                {
                    final boolean ok = client.putIfVersion(keyBytes, encode(value, random),
                        seen == null ? KvClient.ABSENT : seen.version());
                    return Op.compareAndSet(process, expected, value, invoke, history.now(), ok);
                });
            }
        }
    }

    /** Reads every key once more (recorded: the checker then confirms each acknowledged write is still there). */
    public void finalReads(final KvClient reader)
    {
        for (int key = 0; key < keys; key++)
        {
            final long invoke = history.invoke();
            final byte[] v = reader.get(key(key));
            history.record(key, Op.get(99, invoke, history.now(),
                v == null ? OptionalLong.empty() : OptionalLong.of(decode(v))));
        }
    }

    /** Writes every key's history, ops in invocation order with times relative to the start, to {@code file}. */
    void dump(final Path file) throws IOException
    {
        final StringBuilder out = new StringBuilder(String.format("origin %tT.%<tL (op times in ns from it)%n", originWallMs));
        timeline().forEach(line -> out.append(line).append('\n'));
        for (final Map.Entry<Integer, List<Op>> e : history.byKey().entrySet())
        {
            out.append("== key ").append(e.getKey()).append('\n');
            final List<Op> ops = new ArrayList<>(e.getValue());
            ops.sort(Comparator.comparingLong(Op::invokeNanos));
            ops.forEach(op -> out.append(op.describe(origin)).append(epochs.getOrDefault(op.invokeNanos(), ""))
                .append('\n'));
        }
        Files.createDirectories(file.getParent());
        Files.writeString(file, out);
    }

    private void succeeded()
    {
        final long now = System.nanoTime();
        final long before = lastSuccess.getAndSet(now);
        longestGap.accumulateAndGet(now - before, Math::max);
    }

    private void record(final int key, final Op unknown, final java.util.function.Supplier<Op> call)
    {
        Op op;
        try
        {
            op = call.get();
            succeeded();
        }
        catch (final RuntimeException e)
        {
            op = unknown.withUnknownOutcome();
        }
        history.record(key, op);
        epochs.merge(op.invokeNanos(), "->" + client.clusterMap().epoch(), String::concat);
    }

    static byte[] encode(final long value, final SplittableRandom random)
    {
        return ByteBuffer.allocate(8 + random.nextInt(100)).putLong(value).array();
    }

    static long decode(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).getLong();
    }
}
