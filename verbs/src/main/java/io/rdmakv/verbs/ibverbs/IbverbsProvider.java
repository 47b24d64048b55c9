package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.Errno;
import io.rdmakv.verbs.Provider;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/** The {@code ibverbs} provider: Panama FFM over {@code libibverbs.so.1}. */
public final class IbverbsProvider implements Provider
{
    public static final IbverbsProvider INSTANCE = new IbverbsProvider();
    public static final String LIBRARY = "libibverbs.so.1";

    private IbverbsProvider()
    {
    }

    @Override
    public String name()
    {
        return "ibverbs";
    }

    @Override
    public String unavailableReason()
    {
        final Linker linker = Linker.nativeLinker();
        final MemoryLayout state = Linker.Option.captureStateLayout();
        final VarHandle errnoHandle = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        try (Arena arena = Arena.ofConfined())
        {
            final SymbolLookup lib;
            try
            {
                lib = SymbolLookup.libraryLookup(LIBRARY, arena);
            }
            catch (final IllegalArgumentException e)
            {
                return LIBRARY + " cannot be loaded (install rdma-core's libibverbs1 and a provider package, " +
                    "ibverbs-providers on Debian)";
            }
            final MethodHandle getDeviceList = linker.downcallHandle(
                lib.find("ibv_get_device_list").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS),
                Linker.Option.captureCallState("errno"));
            final MethodHandle freeDeviceList = linker.downcallHandle(
                lib.find("ibv_free_device_list").orElseThrow(), FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
            final MemorySegment errno = arena.allocate(state);
            final MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            final MemorySegment list = (MemorySegment)getDeviceList.invokeExact(errno, count);
            if (list.address() == 0)
            {
                final int e = (int)errnoHandle.get(errno, 0L);
                return e == Errno.ENOSYS ?
                    "this kernel has no RDMA support (ibv_get_device_list: ENOSYS)" :
                    "ibv_get_device_list failed (" + Errno.name(e) + ")";
            }
            final int n = count.get(ValueLayout.JAVA_INT, 0);
            freeDeviceList.invokeExact(list);
            if (n == 0)
            {
                return "no RDMA device found (ibv_get_device_list returned an empty list)";
            }
            return "the ibverbs provider's bindings are not in this build yet (" + n + " device(s) found)";
        }
        catch (final Throwable t)
        {
            return "probing " + LIBRARY + " failed: " + t;
        }
    }

    @Override
    public Context open(final VerbsConfig config)
    {
        final String reason = unavailableReason();
        throw new VerbsException("ibv_open_device", 0, reason == null ? "not implemented" : reason);
    }
}
