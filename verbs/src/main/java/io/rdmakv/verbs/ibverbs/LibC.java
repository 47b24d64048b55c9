package io.rdmakv.verbs.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** The two libc calls the provider needs: {@code getrlimit} (memlock diagnostics) and {@code ppoll} (waiting on an fd). */
final class LibC
{
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle GETRLIMIT = LINKER.downcallHandle(
        LINKER.defaultLookup().find("getrlimit").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), CallState.CAPTURE_ERRNO);
    private static final MethodHandle PPOLL = LINKER.downcallHandle(
        LINKER.defaultLookup().find("ppoll").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), CallState.CAPTURE_ERRNO);

    private LibC()
    {
    }

    /** {@code RLIMIT_MEMLOCK} as {soft, hard} in bytes ({@link IbvConstants#RLIM_INFINITY} = unlimited), or null. */
    static long[] memlockLimit()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment rlimit = arena.allocate(Rlimit.LAYOUT);
            final int rc = (int)GETRLIMIT.invokeExact(state, IbvConstants.RLIMIT_MEMLOCK, rlimit);
            if (rc != 0)
            {
                return null;
            }
            return new long[] {rlimit.get(JAVA_LONG, Rlimit.RLIM_CUR), rlimit.get(JAVA_LONG, Rlimit.RLIM_MAX)};
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /**
     * {@code ppoll(fds, nfds, timeout, NULL)}: the caller owns the {@link Pollfd} array, the
     * {@link Timespec} and the {@link CallState}, so a waiting loop can reuse them.
     *
     * @return the number of ready descriptors, 0 on timeout, or -1 with errno in {@code state}
     */
    static int ppoll(final MemorySegment state, final MemorySegment fds, final long nfds, final MemorySegment timeout)
    {
        try
        {
            return (int)PPOLL.invokeExact(state, fds, nfds, timeout, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /**
     * Waits until {@code fd} is readable or {@code timeoutNanos} pass, retrying on {@code EINTR}, with the
     * caller's buffers (a {@link Pollfd}, a {@link Timespec} and a {@link CallState}); allocates nothing.
     *
     * @return 1 when readable, 0 on timeout, or a negative errno
     */
    static int awaitReadable(
        final int fd, final long timeoutNanos, final MemorySegment pollfd, final MemorySegment timespec,
        final MemorySegment state)
    {
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        while (true)
        {
            final long left = Math.max(0, deadline - System.nanoTime());
            pollfd.set(JAVA_INT, Pollfd.FD, fd);
            pollfd.set(JAVA_SHORT, Pollfd.EVENTS, (short)IbvConstants.POLLIN);
            pollfd.set(JAVA_SHORT, Pollfd.REVENTS, (short)0);
            timespec.set(JAVA_LONG, Timespec.TV_SEC, left / 1_000_000_000L);
            timespec.set(JAVA_LONG, Timespec.TV_NSEC, left % 1_000_000_000L);
            final int rc = ppoll(state, pollfd, 1L, timespec);
            if (rc >= 0)
            {
                return rc;
            }
            final int errno = CallState.errno(state);
            if (errno != IbvConstants.EINTR)
            {
                return -errno;
            }
        }
    }

    /** {@link #awaitReadable(int, long, MemorySegment, MemorySegment, MemorySegment)} with buffers of its own. */
    static int awaitReadable(final int fd, final long timeoutNanos)
    {
        try (Arena arena = Arena.ofConfined())
        {
            return awaitReadable(fd, timeoutNanos, arena.allocate(Pollfd.LAYOUT), arena.allocate(Timespec.LAYOUT),
                CallState.allocate(arena));
        }
    }
}
