package io.rdmakv.verbs.ibverbs;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;

/**
 * Loads {@code libibverbs.so.1} once, or remembers why it could not. Kept apart from
 * {@link LibIbverbs} (whose static initialiser binds every function and fails without the library)
 * so that the provider can ask "is it there?" without triggering that failure.
 */
final class IbverbsLibrary
{
    static final String NAME = "libibverbs.so.1";

    /** The library's symbols, or null when it could not be loaded. */
    static final SymbolLookup LOOKUP;

    /** Why the library could not be loaded, or null. */
    static final String LOAD_FAILURE;

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
}
