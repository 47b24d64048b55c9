package io.rdmakv.server.region;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Maps a node's region: an anonymous {@code mmap} trimmed to a 2 MiB boundary, zero until written and faulted in
 * page by page at first touch (a write, or the pinning of {@code ibv_reg_mr}), never zeroed by this process: mapping
 * a region of a few GiB takes milliseconds where a zeroing allocation took 3.6 s per GiB here (46 s for 2.6 GiB while a
 * load ran), and on the {@code tcp} provider only what is written becomes resident. For transparent huge pages it also advises {@code
 * madvise(MADV_HUGEPAGE)} before any page is touched, so the first touch faults in 2 MiB pages where the kernel has
 * them. Linux only; the mapping is unmapped when its arena closes.
 */
public final class HugePages
{
    static final long HUGE_PAGE = 2L << 20;
    /** The kernel's transparent huge page setting (the self-check reports it). */
    public static final Path THP_ENABLED = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
    private static final long PAGE = 4096;
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int MAP_PRIVATE = 2;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final long MAP_FAILED = -1L;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("mmap"),
        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("munmap"),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle MADVISE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("madvise"),
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), CAPTURE_ERRNO);

    private HugePages()
    {
    }

    /**
     * A mapping and whether the kernel took the advice.
     *
     * @param segment the mapped bytes, 2 MiB aligned, zero until written
     * @param advised true when {@code madvise(MADV_HUGEPAGE)} succeeded
     * @param errno   the error of a failed {@code madvise} (22 EINVAL: a kernel without THP), else 0
     */
    record Mapping(MemorySegment segment, boolean advised, int errno)
    {
    }

    /**
     * Maps {@code length} bytes 2 MiB aligned, advised for huge pages when {@code adviseHugePages}; unmapped when
     * {@code arena} closes.
     */
    static Mapping map(final Arena arena, final long length, final boolean adviseHugePages)
    {
        final long size = (length + PAGE - 1) & -PAGE;
        final long reserved = size + HUGE_PAGE;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = call.allocate(CAPTURE);
            final MemorySegment raw = (MemorySegment)MMAP.invokeExact(state, MemorySegment.NULL, reserved,
                PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
            if (raw.address() == MAP_FAILED)
            {
                throw new IllegalStateException("mmap of " + reserved + " bytes failed, errno " +
                    (int)ERRNO.get(state, 0L));
            }
            final long start = (raw.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
            final long head = start - raw.address();
            final long tail = reserved - head - size;
            unmap(raw.address(), head);
            unmap(start + size, tail);
            final MemorySegment mapped = MemorySegment.ofAddress(start);
            int errno = 0;
            if (adviseHugePages && (int)MADVISE.invokeExact(state, mapped, size, MADV_HUGEPAGE) != 0)
            {
                errno = (int)ERRNO.get(state, 0L);
            }
            return new Mapping(mapped.reinterpret(size, arena, s -> unmap(s.address(), size)),
                adviseHugePages && errno == 0, errno);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException("mmap: " + t, t);
        }
    }

    private static void unmap(final long address, final long length)
    {
        if (length <= 0)
        {
            return;
        }
        try
        {
            final int rc = (int)MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
            if (rc != 0)
            {
                throw new IllegalStateException("munmap of " + length + " bytes at 0x" + Long.toHexString(address) +
                    " failed");
            }
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException("munmap: " + t, t);
        }
    }
}
