package io.rdmakv.ycsb;

import io.rdmakv.peer.WaitStrategy;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The binding's {@code rdmakv.wait} and {@code rdmakv.device} properties. */
final class BindingConfigTest
{
    @Test
    void waitIsAdaptiveByDefaultAndFollowsTheProperty() throws DBException
    {
        assertEquals(WaitStrategy.ADAPTIVE, BindingConfig.from(new Properties()).client().waitStrategy());
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.WAIT_PROPERTY, "busy-spin");
        assertEquals(WaitStrategy.BUSY_SPIN, BindingConfig.from(p).client().waitStrategy());
        p.setProperty(RdmaKvClient.WAIT_PROPERTY, "blocking");
        assertEquals(WaitStrategy.BLOCKING, BindingConfig.from(p).client().waitStrategy());
    }

    @Test
    void aBadWaitStrategyFailsInitNamingTheProperty()
    {
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.WAIT_PROPERTY, "yield");
        final DBException e = assertThrows(DBException.class, () -> BindingConfig.from(p));
        assertTrue(e.getMessage().contains("rdmakv.wait") && e.getMessage().contains("'yield'"), e.getMessage());
    }

    @Test
    void theDeviceIsTheFirstActiveUnlessThePropertyNamesOne() throws DBException
    {
        assertNull(BindingConfig.from(new Properties()).client().device());
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.DEVICE_PROPERTY, "rxe1");
        assertEquals("rxe1", BindingConfig.from(p).client().device());
        p.setProperty(RdmaKvClient.DEVICE_PROPERTY, " ");
        assertNull(BindingConfig.from(p).client().device(), "blank: the first active device");
    }
}
