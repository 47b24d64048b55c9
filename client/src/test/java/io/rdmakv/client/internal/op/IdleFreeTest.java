package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.client.internal.session.ClientJanitor;
import io.rdmakv.client.internal.session.JanitorDuties;
import io.rdmakv.peer.Status;
import io.rdmakv.common.SpaceTiming;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static io.rdmakv.client.internal.op.Doorbells.FREE;
import static io.rdmakv.client.internal.op.InsertPathTest.freed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Superseded space always goes back: a FREE is sent however old it is (never dropped), by the lane before
 * its next operation or, while the lane is idle, by the janitor's duty, which never touches a lane in use.
 */
class IdleFreeTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final NodeRegion node = new NodeRegion();
    private final TestLane lane = new TestLane(node, clock, 7);
    private final ReentrantLock use = new ReentrantLock();

    @AfterEach
    void close()
    {
        lane.close();
        node.close();
    }

    /** Deletes a key: its block waits in the lane's FREE batch. Returns the slot word it had. */
    private long deleted(final String key)
    {
        assertEquals(Status.OK, lane.put(key, "v"));
        final long word = lane.version();
        assertEquals(Status.OK, lane.delete(key));
        assertEquals(1, lane.space().pendingFrees());
        return word;
    }

    @Test
    void freesOlderThanTheOldOneSecondLimitAreStillSentNeverDropped()
    {
        final long word = deleted("old");
        clock.advance(TimeUnit.SECONDS.toNanos(5));
        final int mark = lane.mark();
        assertEquals(Status.NOT_FOUND, lane.delete("old")); // a write or delete sends due FREEs first (a GET never)
        assertEquals(FREE, lane.doorbellsSince(mark).getFirst());
        assertEquals(List.of(freed(word)), node.frees());
        assertEquals(0, lane.count(ClientCounter.DROPPED_FREES));
        assertEquals(0, lane.space().pendingFrees());
    }

    @Test
    void theJanitorSendsAnIdleLanesDueFreesOnly()
    {
        final long word = deleted("idle");
        clock.advance(SpaceTiming.FREE_FLUSH_NANOS - 1);
        assertTrue(SpaceLease.sendDueIfIdle(use, lane.space(), () -> true));
        assertTrue(node.frees().isEmpty(), "not due yet");

        clock.advance(TimeUnit.SECONDS.toNanos(10)); // the application went away for a long while
        final int mark = lane.mark();
        assertTrue(SpaceLease.sendDueIfIdle(use, lane.space(), () -> true));
        assertEquals(List.of(FREE), lane.doorbellsSince(mark));
        assertEquals(List.of(freed(word)), node.frees());
        assertEquals(0, lane.count(ClientCounter.DROPPED_FREES));
        assertFalse(use.isLocked(), "the lane is given back");
    }

    @Test
    void theJanitorNeverTouchesALaneInUseNorOneThatIsNoLongerUsable() throws Exception
    {
        deleted("busy");
        clock.advance(TimeUnit.SECONDS.toNanos(2));
        final int mark = lane.mark();
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Void> owner = CompletableFuture.runAsync(() ->
        {
            use.lock();
            try
            {
                held.countDown();
                release.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            finally
            {
                use.unlock();
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        final long t0 = System.nanoTime();
        assertFalse(SpaceLease.sendDueIfIdle(use, lane.space(), () -> true), "the lane is in use");
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "and the janitor did not wait for it");
        release.countDown();
        owner.get(10, TimeUnit.SECONDS);
        assertEquals(List.of(), lane.doorbellsSince(mark), "nothing was posted on the owner's lane");
        assertEquals(1, lane.space().pendingFrees());

        assertFalse(SpaceLease.sendDueIfIdle(use, lane.space(), () -> false), "a broken or closed lane");
        assertEquals(List.of(), lane.doorbellsSince(mark));
        assertTrue(SpaceLease.sendDueIfIdle(use, lane.space(), () -> true));
        assertEquals(0, lane.space().pendingFrees());
    }

    @Test
    void theJanitorHasTheIdleFreeDuty()
    {
        assertFalse(JanitorDuties.all().isEmpty());
        assertTrue(ClientJanitor.TICK_NANOS < SpaceTiming.FREE_FLUSH_NANOS, "a due FREE waits at most a tick more");
    }
}
