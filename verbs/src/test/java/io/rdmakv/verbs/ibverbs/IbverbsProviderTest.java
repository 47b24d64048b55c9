package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbs;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsCq;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsPd;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsQp;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.tcp.TcpProvider;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the provider does on any machine, with or without an RDMA device. */
class IbverbsProviderTest
{
    private static boolean libraryLoaded()
    {
        return IbverbsLibrary.LOAD_FAILURE == null;
    }

    @Test
    void everyExportedVerbBinds()
    {
        assumeTrue(libraryLoaded(), () -> "libibverbs.so.1 is not installed: " + IbverbsLibrary.LOAD_FAILURE);
        // each LibIbverbs* class's static initialiser looks up and binds its functions; a missing symbol throws there
        assertEquals("success", LibIbverbs.ibvWcStatusStr(0));
        for (final Class<?> verbs : new Class<?>[] {LibIbverbsPd.class, LibIbverbsCq.class, LibIbverbsQp.class})
        {
            assertDoesNotThrow(() -> Class.forName(verbs.getName(), true, verbs.getClassLoader()), verbs.getName());
        }
    }

    @Test
    void completionStatusNamesComeFromTheLibrary()
    {
        assumeTrue(libraryLoaded(), () -> "libibverbs.so.1 is not installed: " + IbverbsLibrary.LOAD_FAILURE);
        assertEquals("remote access error", IbverbsProvider.wcStatusString(WcStatus.REM_ACCESS_ERR.code()));
        assertEquals("Work Request Flushed Error", IbverbsProvider.wcStatusString(WcStatus.WR_FLUSH_ERR.code()));
        assertEquals("RNR retry counter exceeded", IbverbsProvider.wcStatusString(WcStatus.RNR_RETRY_EXC_ERR.code()));
    }

    @Test
    void unavailableReasonMatchesWhatTheKernelHas()
    {
        final String reason = IbverbsProvider.INSTANCE.unavailableReason();
        if (!Files.isDirectory(Path.of("/sys/class/infiniband_verbs")))
        {
            assertNotNull(reason, "no uverbs in this kernel, yet the provider says it is usable");
            assertTrue(reason.contains("ENOSYS") || reason.contains("cannot be loaded") ||
                reason.contains("no RDMA device"), reason);
        }
        if (reason == null)
        {
            assertTrue(IbverbsProvider.probe().stream().anyMatch(IbverbsProvider.PortStatus::active));
        }
        else
        {
            assertFalse(reason.isBlank());
        }
    }

    @Test
    void openFailsWithTheReasonWhenUnusable()
    {
        final String reason = IbverbsProvider.INSTANCE.unavailableReason();
        assumeTrue(reason != null, "an RDMA device is usable here");
        final VerbsException e = assertThrows(VerbsException.class, () -> IbverbsProvider.INSTANCE.open(VerbsConfig.DEFAULT));
        assertTrue(e.getMessage().startsWith("ibv_"), e.getMessage());
        final VerbsException viaProviders = assertThrows(VerbsException.class,
            () -> Providers.open(Providers.IBVERBS, VerbsConfig.DEFAULT));
        assertTrue(viaProviders.getMessage().contains(reason), viaProviders.getMessage());
        assertSame(TcpProvider.INSTANCE, Providers.resolve());
    }

    @Test
    void noSuchDeviceIsNamedInTheError()
    {
        assumeTrue(libraryLoaded(), () -> "libibverbs.so.1 is not installed: " + IbverbsLibrary.LOAD_FAILURE);
        final VerbsException e = assertThrows(VerbsException.class,
            () -> IbverbsProvider.INSTANCE.open(VerbsConfig.DEFAULT.withDevice("no_such_dev0")));
        assertTrue(e.errno() == Errno.ENODEV || e.errno() == Errno.ENOSYS, e.getMessage());
    }

    @Test
    void memlockLimitIsReadThroughFfmAsTheKernelSeesIt() throws IOException
    {
        final long[] limit = LibC.memlockLimit();
        assertNotNull(limit);
        final String line = Files.readAllLines(Path.of("/proc/self/limits")).stream()
            .filter(l -> l.startsWith("Max locked memory")).findFirst().orElseThrow();
        final String[] fields = line.substring("Max locked memory".length()).trim().split("\\s+");
        assertEquals(fields[0], limit[0] == IbvConstants.RLIM_INFINITY ? "unlimited" : Long.toString(limit[0]), line);
        assertEquals(fields[1], limit[1] == IbvConstants.RLIM_INFINITY ? "unlimited" : Long.toString(limit[1]), line);
    }

    @Test
    void aRegistrationErrorNamesTheMemlockLimitAndHowToRaiseIt()
    {
        final long[] limit = LibC.memlockLimit();
        final String advice = MemlockLimit.advice(Errno.ENOMEM, 1L << 30);
        if (limit[0] == IbvConstants.RLIM_INFINITY)
        {
            assertTrue(advice.contains("not the cause"), advice);
        }
        else
        {
            assertTrue(advice.contains("RLIMIT_MEMLOCK is " + MemlockLimit.bytes(limit[0])), advice);
            assertTrue(advice.contains("ulimit -l unlimited"), advice);
            assertTrue(advice.contains("LimitMEMLOCK=infinity"), advice);
            assertTrue(advice.contains("1 GiB"), advice);
        }
        assertEquals("", MemlockLimit.advice(Errno.EINVAL, 1L << 30));
    }

    @Test
    void awaitReadableTimesOutOnAnIdleDescriptorAndWakesUpForData() throws Throwable
    {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle pipe = linker.downcallHandle(linker.defaultLookup().find("pipe").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
        final MethodHandle write = linker.downcallHandle(linker.defaultLookup().find("write").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        final MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment fds = arena.allocate(JAVA_INT, 2);
            assertEquals(0, (int)pipe.invokeExact(fds));
            final int readEnd = fds.getAtIndex(JAVA_INT, 0);
            final int writeEnd = fds.getAtIndex(JAVA_INT, 1);
            try
            {
                final long start = System.nanoTime();
                assertEquals(0, LibC.awaitReadable(readEnd, 50_000_000L));
                final long elapsed = System.nanoTime() - start;
                assertTrue(elapsed >= 45_000_000L, "returned after " + elapsed + " ns");
                assertEquals(1L, (long)write.invokeExact(writeEnd, arena.allocateFrom("x"), 1L));
                assertEquals(1, LibC.awaitReadable(readEnd, 5_000_000_000L));
            }
            finally
            {
                final int r1 = (int)close.invokeExact(readEnd);
                final int r2 = (int)close.invokeExact(writeEnd);
                assertEquals(0, r1 | r2);
            }
        }
    }
}
