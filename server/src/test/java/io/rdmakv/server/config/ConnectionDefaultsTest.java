package io.rdmakv.server.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The default connection limit a descriptor limit leaves room for. */
class ConnectionDefaultsTest
{
    @Test
    void theDefaultLeavesTheReserveAndGivesEachSessionItsDescriptors()
    {
        assertEquals((1024 - ConnectionDefaults.RESERVED_DESCRIPTORS) / ConnectionDefaults.DESCRIPTORS_PER_SESSION,
            ConnectionDefaults.defaultFor(1024));
        assertEquals(24, ConnectionDefaults.defaultFor(200), "(200 - 128) / 3");
        assertEquals(1, ConnectionDefaults.defaultFor(100), "a limit under the reserve still takes one client");
        assertEquals(ConnectionDefaults.MAX_DEFAULT, ConnectionDefaults.defaultFor(1L << 20), "capped");
        assertEquals(ConnectionDefaults.UNKNOWN_DESCRIPTORS_DEFAULT, ConnectionDefaults.defaultFor(-1));
        assertTrue(ConnectionDefaults.processDescriptorLimit() > 0, "a Unix JVM says its limit");
    }
}
