package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.rdmakv.verbs.AccessFlags.LOCAL_WRITE;
import static io.rdmakv.verbs.AccessFlags.REMOTE_WRITE;
import static io.rdmakv.verbs.conformance.WindowFixture.A_OFFSET;
import static io.rdmakv.verbs.conformance.WindowFixture.B_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Memory windows under concurrency: invalidation racing writes from several queue pairs. */
final class MemoryWindowRaceTest
{
    /**
     * Two writers race an invalidation, each on its own queue pair and window, counting up one word: the
     * writer whose window is invalidated is cut off there (a write posted after the invalidation completed
     * fails with {@code REM_ACCESS_ERR}, and a failed write never lands: the word holds the last value whose
     * write succeeded); the other writer carries on to its last write.
     */
    @ProviderTest
    void writersRacingAnInvalidationAreCutOffThereAndOnlyThere(final String provider) throws Exception
    {
        final long bystanderWrites = 100;
        final long t0 = System.nanoTime();
        final long[] phases = new long[4];
        try (WindowFixture w = new WindowFixture(provider))
        {
            final Writer cut = new Writer(w, A_OFFSET, Long.MAX_VALUE);
            final Writer carryOn = new Writer(w, B_OFFSET, bystanderWrites);
            final int rkeyA = w.bind(cut.link.server(), w.a, w.data.address() + A_OFFSET, 8, REMOTE_WRITE);
            final int rkeyB = w.bind(carryOn.link.server(), w.b, w.data.address() + B_OFFSET, 8, REMOTE_WRITE);
            final long[] cutoff = new long[1];
            phases[0] = System.nanoTime() - t0;
            Concurrently.run(TimeUnit.SECONDS.toNanos(60), List.of(
                () -> cut.run(rkeyA),
                () -> carryOn.run(rkeyB),
                () ->
                {
                    final long deadline = System.nanoTime() + VerbsFixture.WAIT_NANOS;
                    while (cut.lastSuccess < 20 && cut.failedAt == 0 && System.nanoTime() < deadline)
                    {
                        // parks rather than spins: under the VM's emulation a spinning thread starves the writers
                        LockSupport.parkNanos(100_000);
                    }
                    phases[1] = System.nanoTime() - t0;
                    // invalidated from the server's completion queue, which only this thread polls now
                    w.invalidate(cut.link.server(), rkeyA).assertSuccess(2, WcOpcode.LOCAL_INV, cut.link.server().qpNum());
                    cutoff[0] = cut.posting;
                    phases[2] = System.nanoTime() - t0;
                }));
            phases[3] = System.nanoTime() - t0;
            System.out.printf("memory window race %s: set up %d ms, 20 writes %d ms, invalidated %d ms, writers done " +
                "%d ms (the cut-off writer failed at write %d, the other made %d)%n", provider, phases[0] / 1_000_000,
                phases[1] / 1_000_000, phases[2] / 1_000_000, phases[3] / 1_000_000, cut.failedAt, carryOn.lastSuccess);

            assertEquals(WcStatus.REM_ACCESS_ERR, cut.failure, "the cut-off writer's failure");
            assertTrue(cut.lastSuccess >= 20 && cut.lastSuccess <= cutoff[0], () -> "the last successful write (" +
                cut.lastSuccess + ") comes after the 20th and before the invalidation completed (" + cutoff[0] + ")");
            assertEquals(cut.lastSuccess, Memory.word(w.data.segment(), A_OFFSET), "the invalidated window's word");
            assertEquals(0, carryOn.failedAt, () -> "the other writer failed at write " + carryOn.failedAt);
            assertEquals(bystanderWrites, Memory.word(w.data.segment(), B_OFFSET), "the other window's word");
            // Deallocated before the fixture destroys the writers' queue pairs: destroying a queue pair with
            // a window still bound to it took ~50 s in the Soft-RoCE VM (rxe's window holds a reference on
            // the queue pair until it is deallocated or invalidated).
            w.a.close();
            w.b.close();
        }
    }

    /** One writer: its own queue pair, completion queue and buffer; writes 1, 2, 3... to one word. */
    private static final class Writer
    {
        final VerbsFixture.Link link;
        final CompletionQueue cq;
        final MemoryRegion buffer;
        final SendWorkRequests requests;
        final WindowFixture w;
        final long offset;
        final long writes;
        volatile long posting;
        volatile long lastSuccess;
        volatile long failedAt;
        volatile WcStatus failure;

        Writer(final WindowFixture w, final long offset, final long writes)
        {
            this.w = w;
            this.offset = offset;
            this.writes = writes;
            cq = w.fx.createCompletionQueue(w.fx.client(), VerbsFixture.QUEUE_DEPTH);
            link = w.fx.connectedPair(QueuePairConfig.of(cq, 16, 16), ConnectOptions.DEFAULT,
                QueuePairConfig.of(w.fx.server().cq(), 16, 16), ConnectOptions.DEFAULT);
            buffer = w.fx.register(w.fx.client(), 64, LOCAL_WRITE);
            requests = w.fx.sendRequests(1);
        }

        void run(final int rkey)
        {
            try (CompletionWaiter waiter = new CompletionWaiter())
            {
                for (long i = 1; i <= writes; i++)
                {
                    posting = i;
                    Memory.word(buffer.segment(), 0, i);
                    VerbsFixture.postSend(link.client(), requests.at(0).rdmaWrite(buffer.address(), 8, buffer.lkey(),
                        w.data.address() + offset, rkey).wrId(i).sendFlags(SendFlags.SIGNALED));
                    final Completion c = waiter.awaitOne(cq);
                    assertEquals(i, c.wrId(), () -> "completion " + c);
                    if (!c.isSuccess())
                    {
                        failure = c.status();
                        failedAt = i;
                        return;
                    }
                    lastSuccess = i;
                }
            }
        }
    }
}
