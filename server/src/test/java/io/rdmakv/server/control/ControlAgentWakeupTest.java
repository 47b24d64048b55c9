package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.space.TestRegion;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The control agent on its runner, idle, asleep on a {@code tcp} completion queue: a task another thread
 * offers wakes it (the agent sleeps up to {@link ControlAgent#MAX_SLEEP_NANOS}, a second, so a task that
 * had to wait for the sleep to end would take most of that), an idle agent still wakes only a few times a
 * second, and {@link ControlAgent#prepareToStop} lets its runner close without waiting out the sleep.
 */
class ControlAgentWakeupTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    /** Long after the agent's last work: it has spun, yielded and gone to sleep for its whole second. */
    private static final long ASLEEP_MILLIS = 50;
    /**
     * A task offered to the sleeping agent runs within this: a wake-up plus a loaded machine's worst
     * scheduling delay, and far less than the rest of a second's sleep that a lost wake-up costs.
     */
    private static final long PROMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    private static final int ROUNDS = 20;

    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    private Context context;
    private CountingQueue cq;
    private ControlAgent agent;
    private AgentRunner runner;

    @BeforeEach
    void start()
    {
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        cq = new CountingQueue(context.createCompletionQueue(64));
        final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
        final SystemNanoClock clock = new SystemNanoClock();
        agent = new ControlAgent(cq, allocator, new IndexScanner(atomics, GEOMETRY),
            new LiveBlockCheck(region.segment(), GEOMETRY),
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock,
            allocator.capacity());
        runner = new AgentRunner(agent.idleStrategy(),
            new CountingErrorHandler(counters, ServerCounter.AGENT_ERRORS, "control agent"), null, agent);
        AgentRunner.startOnThread(runner);
    }

    @AfterEach
    void close()
    {
        agent.prepareToStop();
        CloseHelper.closeAll(runner, cq, context, region);
    }

    @Test
    void aTaskOfferedToASleepingAgentRunsAtOnce() throws Exception
    {
        long worst = 0;
        for (int round = 0; round < ROUNDS; round++)
        {
            Thread.sleep(ASLEEP_MILLIS);
            final CompletableFuture<Long> ran = new CompletableFuture<>();
            final long offeredAt = System.nanoTime();
            agent.execute(() -> ran.complete(System.nanoTime()));
            worst = Math.max(worst, ran.get(10, TimeUnit.SECONDS) - offeredAt);
        }
        final long slowest = worst;
        assertTrue(slowest < PROMPT_NANOS, () -> "the slowest of " + ROUNDS + " tasks offered to the sleeping " +
            "agent ran " + TimeUnit.NANOSECONDS.toMillis(slowest) + " ms after it was offered: it waited for " +
            "the sleep to end");
    }

    @Test
    void anIdleAgentWakesOnlyAFewTimesASecond() throws Exception
    {
        Thread.sleep(ASLEEP_MILLIS);
        final int before = cq.awaits.get();
        Thread.sleep(1_000);
        final int sleeps = cq.awaits.get() - before;
        assertTrue(sleeps <= 5, "an idle agent went to sleep " + sleeps + " times in a second");
    }

    @Test
    void preparedToStopItsRunnerClosesWithoutWaitingOutTheSleep() throws Exception
    {
        Thread.sleep(ASLEEP_MILLIS);
        final long start = System.nanoTime();
        agent.prepareToStop();
        runner.close();
        final long took = System.nanoTime() - start;
        assertTrue(agent.isClosed(), "the runner closed the agent");
        assertTrue(took < PROMPT_NANOS, () -> "the runner took " + TimeUnit.NANOSECONDS.toMillis(took) +
            " ms to close: it waited for the agent's sleep to end");
    }

    /** The node's queue, counting the agent's sleeps ({@code await} calls). */
    private static final class CountingQueue implements CompletionQueue
    {
        private final CompletionQueue queue;
        private final AtomicInteger awaits = new AtomicInteger();

        CountingQueue(final CompletionQueue queue)
        {
            this.queue = queue;
        }

        @Override
        public Context context()
        {
            return queue.context();
        }

        @Override
        public int capacity()
        {
            return queue.capacity();
        }

        @Override
        public int poll(final WorkCompletions completions)
        {
            return queue.poll(completions);
        }

        @Override
        public int await(final WorkCompletions completions, final long timeoutNanos)
        {
            awaits.incrementAndGet();
            return queue.await(completions, timeoutNanos);
        }

        @Override
        public void wakeup()
        {
            queue.wakeup();
        }

        @Override
        public void close()
        {
            queue.close();
        }
    }
}
