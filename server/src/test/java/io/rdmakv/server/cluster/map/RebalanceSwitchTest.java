package io.rdmakv.server.cluster.map;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code rebalance/auto} znode's content: {@code on} or {@code off}, white space around it ignored. */
class RebalanceSwitchTest
{
    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void onAndOffAreRead()
    {
        assertTrue(RebalanceSwitch.isOn(bytes("on")));
        assertTrue(RebalanceSwitch.isOn(bytes(" on\n")));
        assertFalse(RebalanceSwitch.isOn(bytes("off")));
        assertFalse(RebalanceSwitch.isOn(bytes("off\n")));
    }

    @Test
    void anythingElseIsRefusedSayingWhatItHolds()
    {
        for (final String bad : new String[] {"", "ON", "true", "1", "on off"})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RebalanceSwitch.isOn(bytes(bad)), bad);
            assertEquals("rebalance/auto holds \"" + bad + "\", not on or off", e.getMessage());
        }
        final IllegalArgumentException control = assertThrows(IllegalArgumentException.class,
            () -> RebalanceSwitch.isOn(bytes("o\u0001n")));
        assertTrue(control.getMessage().contains("\"o?n\""), control.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RebalanceSwitch.isOn(null));
    }
}
