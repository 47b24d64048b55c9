package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.concurrent.Racers;
import io.rdmakv.testsupport.linearizability.KeyedCheckResult;
import io.rdmakv.testsupport.linearizability.KeyedHistory;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import io.rdmakv.testsupport.linearizability.Op;
import io.rdmakv.testsupport.linearizability.Outcome;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Six threads on three hot keys (GET, PUT, DELETE, compare-and-set) while the group's primary is killed with
 * SIGKILL: the history of each key, across the failover, must be linearizable as a register. A call that
 * failed is recorded with its outcome unknown (it may or may not have taken effect); a DELETE's "existed"
 * is recorded as unknown too, since a DELETE that lost its connection is run again and may then report
 * false for a key it deleted.
 */
class FailoverLinearizabilityTest extends ZkClusterTestBase
{
    private static final int THREADS = 6;
    private static final int KEYS = 3;
    private static final int OPS_PER_THREAD = 350;

    private volatile long killedAt;

    @Test
    void hotKeysStayLinearizableAcrossAFailover() throws Exception
    {
        final ClusterMap before = startReplicated(3, 2, false);
        final KeyedHistory<Integer> history = new KeyedHistory<>();
        final long start = history.now();
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(20))))
        {
            final Thread killer = Thread.ofPlatform().name("killer").start(() ->
            {
                try
                {
                    Thread.sleep(700);
                    killedAt = history.now();
                    cluster.kill(before.groups().getFirst().primary());
                    System.out.println("killed the primary " + (killedAt - start) / 1_000_000 + " ms into the run");
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            final List<Throwable> failures = Racers.run("failover-lin-", THREADS,
                process -> run(client, history, process), Duration.ofSeconds(180));
            killer.join();
            assertEquals(List.of(), failures);
        }
        final ClusterMap after = cluster.newestMap();
        assertTrue(after.epoch() > before.epoch(), "the history spans a failover: epoch " + before.epoch() + " -> " +
            after.epoch());
        System.out.println("epochs " + before.epoch() + " -> " + after.epoch() + ", map " + after);
        final KeyedCheckResult<Integer> result = history.check(new LinearizabilityChecker());
        assertTrue(result.isLinearizable(), result.summary());
    }

    private static void run(final KvClient client, final KeyedHistory<Integer> history, final int process)
    {
        final SplittableRandom random = new SplittableRandom(4000 + process);
        final Versioned[] lastRead = new Versioned[KEYS];
        for (int i = 0; i < OPS_PER_THREAD; i++)
        {
            LockSupport.parkNanos(5_000_000);
            final int key = random.nextInt(KEYS);
            final byte[] keyBytes = ("failover-lin-" + key).getBytes();
            final long value = ((long)(process + 1) << 32) | i;
            final int dice = random.nextInt(100);
            final long invoke = history.invoke();
            if (dice < 35)
            {
                try
                {
                    final Versioned v = client.getVersioned(keyBytes);
                    lastRead[key] = v;
                    history.record(key, Op.get(process, invoke, history.now(),
                        v == null ? OptionalLong.empty() : OptionalLong.of(decode(v.value()))));
                }
                catch (final RuntimeException e)
                {
                    // a read that failed constrains nothing
                }
            }
            else if (dice < 65)
            {
                record(history, key, Op.put(process, value, invoke, Op.INFINITY), () ->
                {
                    client.put(keyBytes, encode(value, random));
                    return Op.put(process, value, invoke, history.now());
                });
            }
            else if (dice < 75)
            {
                record(history, key, Op.delete(process, invoke, Op.INFINITY, Outcome.UNKNOWN), () ->
                {
                    client.delete(keyBytes);
                    return Op.delete(process, invoke, history.now(), Outcome.UNKNOWN);
                });
            }
            else
            {
                final Versioned seen = lastRead[key];
                final OptionalLong expected = seen == null ? OptionalLong.empty() : OptionalLong.of(decode(seen.value()));
                record(history, key, Op.compareAndSet(process, expected, value, invoke, Op.INFINITY, Outcome.UNKNOWN),
                    () ->
                    {
                        final boolean ok = client.putIfVersion(keyBytes, encode(value, random),
                            seen == null ? KvClient.ABSENT : seen.version());
                        return Op.compareAndSet(process, expected, value, invoke, history.now(), ok);
                    });
            }
        }
    }

    /** Records what {@code call} returns, or {@code unknown} when it threw (the write may have happened). */
    private static void record(final KeyedHistory<Integer> history, final int key, final Op unknown,
        final java.util.function.Supplier<Op> call)
    {
        Op op;
        try
        {
            op = call.get();
        }
        catch (final RuntimeException e)
        {
            op = unknown.withUnknownOutcome();
        }
        history.record(key, op);
    }

    private static byte[] encode(final long value, final SplittableRandom random)
    {
        return ByteBuffer.allocate(8 + random.nextInt(200)).putLong(value).array();
    }

    private static long decode(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).getLong();
    }
}
