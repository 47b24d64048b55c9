package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Loads {@code librdmacm.so.1} (the RDMA connection manager) the first time rdma_cm is asked for, or
 * remembers why it could not. The {@code ibverbs} provider works without it: nothing loads this class
 * unless a connection is set up through rdma_cm. Kept apart from {@link LibRdmacm} and
 * {@link LibRdmacmConn}, whose static initialisers bind their functions and fail without the library,
 * so that a caller can ask {@link #loadFailure()} first.
 */
public final class RdmacmLibrary
{
    public static final String NAME = "librdmacm.so.1";

    private static final Linker LINKER = Linker.nativeLinker();

    private RdmacmLibrary()
    {
    }

    /** Loaded on first use (class initialisation is lazy and thread-safe). */
    private static final class Holder
    {
        static final SymbolLookup LOOKUP;
        static final String FAILURE;

        static
        {
            final String failure = loadFailureOf(NAME);
            LOOKUP = failure == null ? SymbolLookup.libraryLookup(NAME, Arena.global()) : null;
            FAILURE = failure;
        }
    }

    /**
     * Null when {@code library} loads, else why not, in words that name the package to install (public for
     * the test of the message; the provider asks {@link #loadFailure()}).
     */
    public static String loadFailureOf(final String library)
    {
        try
        {
            SymbolLookup.libraryLookup(library, Arena.global());
            return null;
        }
        catch (final IllegalArgumentException e)
        {
            return library + " cannot be loaded: rdma_cm needs rdma-core's librdmacm (librdmacm1 on " +
                "Debian/Ubuntu, librdmacm from rdma-core on RHEL/Fedora); connections that exchange queue " +
                "pair numbers over the bootstrap do not need it";
        }
        catch (final IllegalCallerException e)
        {
            return "native access is not enabled for this code: start the JVM with " +
                "--enable-native-access=ALL-UNNAMED (" + e.getMessage() + ")";
        }
    }

    /** Why {@code librdmacm.so.1} cannot be used, or null when it loaded. Loads it on the first call. */
    public static String loadFailure()
    {
        return Holder.FAILURE;
    }

    /**
     * A downcall handle for the exported function {@code name}; {@code captureErrno} makes the handle take a
     * {@link CallState} segment first. Throws {@link IllegalStateException} naming the package when the
     * library is missing, or the function when this librdmacm does not export it.
     */
    static MethodHandle downcall(final String name, final boolean captureErrno, final FunctionDescriptor descriptor)
    {
        if (Holder.LOOKUP == null)
        {
            throw new IllegalStateException(Holder.FAILURE);
        }
        final MemorySegment symbol = Holder.LOOKUP.find(name).orElseThrow(() -> new IllegalStateException(
            name + " is not exported by " + NAME + " (rdma-core older than 28?)"));
        return captureErrno ?
            LINKER.downcallHandle(symbol, descriptor, CallState.CAPTURE_ERRNO) :
            LINKER.downcallHandle(symbol, descriptor);
    }
}
