package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.ibverbs.layout.Pollfd;
import io.rdmakv.verbs.ibverbs.layout.Timespec;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The libc side of {@link IbvCompletionQueue#wakeup}, without an RDMA device: an eventfd polled with
 * another descriptor by {@link LibC#awaitEither} times out while nothing happens, is reported ready once
 * signalled (however often), and is idle again once drained.
 */
final class LibCWakeupTest
{
    @Test
    void aSignalledEventfdEndsTheWaitAndADrainedOneDoesNot()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment pollfds = arena.allocate(Pollfd.LAYOUT, 2);
            final MemorySegment timespec = arena.allocate(Timespec.LAYOUT);
            final MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            final MemorySegment drained = arena.allocate(JAVA_LONG);
            final int idle = LibC.eventfd(state);
            final int wake = LibC.eventfd(state);
            assertTrue(idle >= 0 && wake >= 0, "eventfd failed: errno " + CallState.errno(state));
            try
            {
                final long start = System.nanoTime();
                assertEquals(0, LibC.awaitEither(idle, wake, 50_000_000L, pollfds, timespec, state));
                final long elapsed = System.nanoTime() - start;
                assertTrue(elapsed >= 45_000_000L, "returned after " + elapsed + " ns");

                LibC.eventfdSignal(wake, one);
                LibC.eventfdSignal(wake, one);
                assertEquals(LibC.READY_B, LibC.awaitEither(idle, wake, 5_000_000_000L, pollfds, timespec, state));
                LibC.eventfdDrain(wake, drained);
                assertEquals(2L, drained.get(JAVA_LONG, 0), "the counter holds every signal until drained");
                assertEquals(0, LibC.awaitEither(idle, wake, 1_000_000L, pollfds, timespec, state));
                LibC.eventfdDrain(wake, drained); // nothing to read: returns at once (non-blocking)

                LibC.eventfdSignal(idle, one);
                assertEquals(LibC.READY_A, LibC.awaitEither(idle, wake, 5_000_000_000L, pollfds, timespec, state));
            }
            finally
            {
                LibC.close(idle);
                LibC.close(wake);
            }
        }
    }
}
