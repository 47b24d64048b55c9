package io.rdmakv.verbs.ibverbs.bindings;

import io.rdmakv.verbs.ibverbs.layout.Pollfd;
import io.rdmakv.verbs.ibverbs.layout.Rlimit;
import io.rdmakv.verbs.ibverbs.layout.Timespec;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The libc calls the provider needs: {@code getrlimit} (memlock diagnostics), {@code ppoll} (waiting on
 * fds), an {@code eventfd} with its {@code write}, {@code read} and {@code close} (waking a waiter), and
 * {@code fcntl} to make an rdma_cm event channel non-blocking.
 */
public final class LibC
{
    /** {@link #awaitEither}: the first descriptor is ready. */
    public static final int READY_A = 1;
    /** {@link #awaitEither}: the second descriptor is ready. */
    public static final int READY_B = 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle GETRLIMIT = LINKER.downcallHandle(
        LINKER.defaultLookup().find("getrlimit").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), CallState.CAPTURE_ERRNO);
    private static final MethodHandle PPOLL = LINKER.downcallHandle(
        LINKER.defaultLookup().find("ppoll").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS), CallState.CAPTURE_ERRNO);
    private static final MethodHandle EVENTFD = LINKER.downcallHandle(
        LINKER.defaultLookup().find("eventfd").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CallState.CAPTURE_ERRNO);
    // write and read without errno capture: an eventfd's wakers share no state, and its errors are not acted on
    private static final MethodHandle WRITE = LINKER.downcallHandle(
        LINKER.defaultLookup().find("write").orElseThrow(),
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle READ = LINKER.downcallHandle(
        LINKER.defaultLookup().find("read").orElseThrow(),
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    // fcntl is variadic: F_GETFL passes no third argument, F_SETFL an int
    private static final MethodHandle FCNTL_GET = LINKER.downcallHandle(
        LINKER.defaultLookup().find("fcntl").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
        CallState.CAPTURE_ERRNO, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle FCNTL_SET = LINKER.downcallHandle(
        LINKER.defaultLookup().find("fcntl").orElseThrow(),
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), CallState.CAPTURE_ERRNO,
        Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(
        LINKER.defaultLookup().find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private LibC()
    {
    }

    /** {@code RLIMIT_MEMLOCK} as {soft, hard} in bytes ({@link IbvConstants#RLIM_INFINITY} = unlimited), or null. */
    public static long[] memlockLimit()
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
    public static int awaitReadable(
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

    /**
     * Waits until {@code fdA} or {@code fdB} is readable (or reports an error or a hang-up) or
     * {@code timeoutNanos} pass, retrying on {@code EINTR}, with the caller's buffers: {@code pollfds} holds
     * two {@link Pollfd}s. Allocates nothing.
     *
     * @return a bit mask, {@link #READY_A} and {@link #READY_B}, of the descriptors ready; 0 on timeout; or
     * a negative errno
     */
    public static int awaitEither(
        final int fdA, final int fdB, final long timeoutNanos, final MemorySegment pollfds,
        final MemorySegment timespec, final MemorySegment state)
    {
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        final long b = Pollfd.LAYOUT.byteSize();
        while (true)
        {
            final long left = Math.max(0, deadline - System.nanoTime());
            pollfds.set(JAVA_INT, Pollfd.FD, fdA);
            pollfds.set(JAVA_SHORT, Pollfd.EVENTS, (short)IbvConstants.POLLIN);
            pollfds.set(JAVA_SHORT, Pollfd.REVENTS, (short)0);
            pollfds.set(JAVA_INT, b + Pollfd.FD, fdB);
            pollfds.set(JAVA_SHORT, b + Pollfd.EVENTS, (short)IbvConstants.POLLIN);
            pollfds.set(JAVA_SHORT, b + Pollfd.REVENTS, (short)0);
            timespec.set(JAVA_LONG, Timespec.TV_SEC, left / 1_000_000_000L);
            timespec.set(JAVA_LONG, Timespec.TV_NSEC, left % 1_000_000_000L);
            final int rc = ppoll(state, pollfds, 2L, timespec);
            if (rc >= 0)
            {
                return (pollfds.get(JAVA_SHORT, Pollfd.REVENTS) != 0 ? READY_A : 0) |
                    (pollfds.get(JAVA_SHORT, b + Pollfd.REVENTS) != 0 ? READY_B : 0);
            }
            final int errno = CallState.errno(state);
            if (errno != IbvConstants.EINTR)
            {
                return -errno;
            }
        }
    }

    /** {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}: the descriptor, or -1 with errno in {@code state}. */
    public static int eventfd(final MemorySegment state)
    {
        try
        {
            return (int)EVENTFD.invokeExact(state, 0, IbvConstants.EFD_NONBLOCK | IbvConstants.EFD_CLOEXEC);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /**
     * Adds the 8-byte counter value in {@code one} (1) to the eventfd {@code fd}, making it readable; never
     * blocks (the counter cannot realistically reach its limit), allocates nothing, any thread.
     */
    public static void eventfdSignal(final int fd, final MemorySegment one)
    {
        try
        {
            final long ignored = (long)WRITE.invokeExact(fd, one, 8L);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /** Reads (so resets) the non-blocking eventfd {@code fd}'s counter into {@code word}; nothing when it is 0. */
    public static void eventfdDrain(final int fd, final MemorySegment word)
    {
        try
        {
            final long ignored = (long)READ.invokeExact(fd, word, 8L);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /**
     * Sets {@code O_NONBLOCK} on {@code fd} ({@code fcntl} {@code F_GETFL}, then {@code F_SETFL}).
     *
     * @return 0, or the errno
     */
    public static int setNonBlocking(final int fd)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final int flags = (int)FCNTL_GET.invokeExact(state, fd, IbvConstants.F_GETFL);
            if (flags < 0)
            {
                return CallState.errno(state);
            }
            final int rc = (int)FCNTL_SET.invokeExact(state, fd, IbvConstants.F_SETFL, flags | IbvConstants.O_NONBLOCK);
            return rc < 0 ? CallState.errno(state) : 0;
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /** {@code close(fd)}; its result is not acted on (the descriptor is gone either way). */
    public static void close(final int fd)
    {
        try
        {
            final int ignored = (int)CLOSE.invokeExact(fd);
        }
        catch (final Throwable t)
        {
            throw IbverbsLibrary.rethrow(t);
        }
    }

    /** {@link #awaitReadable(int, long, MemorySegment, MemorySegment, MemorySegment)} with buffers of its own. */
    public static int awaitReadable(final int fd, final long timeoutNanos)
    {
        try (Arena arena = Arena.ofConfined())
        {
            return awaitReadable(fd, timeoutNanos, arena.allocate(Pollfd.LAYOUT), arena.allocate(Timespec.LAYOUT),
                CallState.allocate(arena));
        }
    }
}
