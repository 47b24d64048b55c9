package io.rdmakv.ycsb;

import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.verbs.ConnectionSetup;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The binding's {@code rdmakv.wait}, {@code rdmakv.cm} and {@code rdmakv.device} properties. */
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
    void connectionSetupIsAutoByDefaultAndFollowsTheProperty() throws DBException
    {
        assertEquals(ConnectionSetup.AUTO, BindingConfig.from(new Properties()).client().connectionSetup());
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.CM_PROPERTY, "rdmacm");
        p.setProperty(RdmaKvClient.TRANSPORT_PROPERTY, "ibverbs");
        assertEquals(ConnectionSetup.RDMACM, BindingConfig.from(p).client().connectionSetup());
        p.setProperty(RdmaKvClient.CM_PROPERTY, "exchange");
        assertEquals(ConnectionSetup.EXCHANGE, BindingConfig.from(p).client().connectionSetup());
    }

    @Test
    void aBadConnectionSetupFailsInitNamingThePropertyAndRdmacmNeedsIbverbs()
    {
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.CM_PROPERTY, "iwarp");
        final DBException e = assertThrows(DBException.class, () -> BindingConfig.from(p));
        assertTrue(e.getMessage().contains("rdmakv.cm") && e.getMessage().contains("'iwarp'"), e.getMessage());
        p.setProperty(RdmaKvClient.CM_PROPERTY, "rdmacm");
        p.setProperty(RdmaKvClient.TRANSPORT_PROPERTY, "tcp");
        final DBException tcp = assertThrows(DBException.class, () -> BindingConfig.from(p));
        assertTrue(tcp.getMessage().contains("rdmacm needs the ibverbs transport"), tcp.getMessage());
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
