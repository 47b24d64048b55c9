package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Loads {@code libibverbs.so.1} once, or remembers why it could not, and binds its functions. Kept apart
 * from {@link LibIbverbs}, {@link LibIbverbsPd}, {@link LibIbverbsCq} and {@link LibIbverbsQp} (whose
 * static initialisers bind their functions and fail without the library) so that the provider can ask
 * "is it there?" without triggering that failure.
 */
public final class IbverbsLibrary
{
    public static final String NAME = "libibverbs.so.1";

    private static final Linker LINKER = Linker.nativeLinker();

    /** The library's symbols, or null when it could not be loaded. */
    static final SymbolLookup LOOKUP;

    /** Why the library could not be loaded, or null. */
    public static final String LOAD_FAILURE;

    static
    {
        SymbolLookup lookup = null;
        String failure = null;
        try
        {
            lookup = SymbolLookup.libraryLookup(NAME, Arena.global());
        }
        catch (final IllegalArgumentException e)
        {
            failure = NAME + " cannot be loaded (install rdma-core's libibverbs1 and a provider package, " +
                "ibverbs-providers on Debian)";
        }
        catch (final IllegalCallerException e)
        {
            failure = "native access is not enabled for this code: start the JVM with " +
                "--enable-native-access=ALL-UNNAMED (" + e.getMessage() + ")";
        }
        LOOKUP = lookup;
        LOAD_FAILURE = failure;
    }

    private IbverbsLibrary()
    {
    }

    /**
     * A downcall handle for the exported function {@code name}; {@code captureErrno} makes the handle take a
     * {@link CallState} segment first. Throws {@link IllegalStateException} when the library is missing or
     * does not export the function.
     */
    static MethodHandle downcall(final String name, final boolean captureErrno, final FunctionDescriptor descriptor)
    {
        if (LOOKUP == null)
        {
            throw new IllegalStateException(LOAD_FAILURE);
        }
        final MemorySegment symbol = LOOKUP.find(name).orElseThrow(() -> new IllegalStateException(
            name + " is not exported by " + NAME + " (rdma-core older than 32?)"));
        return captureErrno ?
            LINKER.downcallHandle(symbol, descriptor, CallState.CAPTURE_ERRNO) :
            LINKER.downcallHandle(symbol, descriptor);
    }

    /** Rethrows what a downcall's {@code invokeExact} threw: unchecked as it is, checked wrapped. */
    static RuntimeException rethrow(final Throwable t)
    {
        if (t instanceof RuntimeException r)
        {
            throw r;
        }
        if (t instanceof Error e)
        {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
