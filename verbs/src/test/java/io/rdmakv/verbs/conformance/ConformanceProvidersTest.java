package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.Providers;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The suite's own plumbing: which providers run, and which of them may be skipped. Needs no provider. */
final class ConformanceProvidersTest
{
    @Test
    void defaultListIsTcpThenIbverbs()
    {
        assertEquals(List.of(Providers.TCP, Providers.IBVERBS), ConformanceProviders.DEFAULT);
    }

    @Test
    void commaListIsTrimmedAndDeduplicated()
    {
        assertEquals(List.of("ibverbs"), ConformanceProviders.parse("ibverbs"));
        assertEquals(List.of("ibverbs", "tcp"), ConformanceProviders.parse(" ibverbs , tcp,,ibverbs "));
    }

    @Test
    void aListNamingNothingIsAnError()
    {
        assertThrows(IllegalArgumentException.class, () -> ConformanceProviders.parse(" , "));
    }

    @Test
    void tcpAndExplicitlyRequestedProvidersAreRequiredOthersMaySkip()
    {
        assertTrue(ConformanceProviders.required(Providers.TCP, null));
        assertFalse(ConformanceProviders.required(Providers.IBVERBS, null));
        assertFalse(ConformanceProviders.required(Providers.IBVERBS, " "));
        assertTrue(ConformanceProviders.required(Providers.IBVERBS, "ibverbs"));
    }

    @Test
    void anUnknownProviderNameFailsInsteadOfSkipping()
    {
        assertThrows(IllegalArgumentException.class, () -> ConformanceProviders.requireUsable("rdma-over-pigeons"));
    }
}
