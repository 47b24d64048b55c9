package io.rdmakv.verbs;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --cm}: its names, and what each setting means on a provider without rdma_cm ({@code tcp}). */
class ConnectionSetupTest
{
    @Test
    void parsesExactlyItsNames()
    {
        assertEquals(List.of("auto", "rdmacm", "exchange"), ConnectionSetup.NAMES);
        for (final ConnectionSetup setup : ConnectionSetup.values())
        {
            assertEquals(setup, ConnectionSetup.parse(setup.label()));
        }
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> ConnectionSetup.parse("RDMACM"));
        assertEquals("unknown connection setup 'RDMACM' (--cm): expected one of auto, rdmacm, exchange", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConnectionSetup.parse(""));
    }

    @Test
    void theTcpProviderHasNoConnectionManagerAndAlwaysExchanges()
    {
        try (Context tcp = Providers.open(Providers.TCP, VerbsConfig.DEFAULT))
        {
            assertNull(tcp.connectionManager());
            assertFalse(tcp.requiresConnectionManager());
            assertFalse(ConnectionSetup.AUTO.usesConnectionManager(tcp));
            assertFalse(ConnectionSetup.EXCHANGE.usesConnectionManager(tcp));
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConnectionSetup.RDMACM.usesConnectionManager(tcp));
            assertTrue(e.getMessage().startsWith("--cm rdmacm needs the ibverbs transport; the tcp transport " +
                "connects its queue pairs itself"), e.getMessage());
        }
    }
}
