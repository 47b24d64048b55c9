package io.rdmakv.client;

import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Providers;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link KvClientConfig#withConnectionSetup}: auto by default, kept by every other {@code with}, rdmacm needs ibverbs. */
class ConnectionSetupConfigTest
{
    @Test
    void autoByDefaultAndKeptByTheOtherSettings()
    {
        final KvClientConfig config = KvClientConfig.of("127.0.0.1:7400");
        assertEquals(ConnectionSetup.AUTO, config.connectionSetup());
        final KvClientConfig exchange = config.withConnectionSetup(ConnectionSetup.EXCHANGE);
        assertEquals(ConnectionSetup.EXCHANGE, exchange.withAuthToken("t").withTransport("ibverbs")
            .withOpTimeout(java.time.Duration.ofSeconds(1)).withConnectTimeout(java.time.Duration.ofSeconds(1))
            .withAsyncThreads(2).withCacheEntries(0).withWaitStrategy(io.rdmakv.peer.WaitStrategy.BUSY_SPIN)
            .withMetrics(null).withTls((ClientTls)null).connectionSetup());
        assertEquals(ConnectionSetup.AUTO, config.withConnectionSetup(null).connectionSetup(), "null: auto");
    }

    @Test
    void rdmacmOnTheTcpTransportIsRefusedSayingWhatToUse()
    {
        final IllegalArgumentException named = assertThrows(IllegalArgumentException.class,
            () -> KvClientConfig.of("127.0.0.1:7400").withTransport(Providers.TCP)
                .withConnectionSetup(ConnectionSetup.RDMACM));
        assertTrue(named.getMessage().contains("rdmacm needs the ibverbs transport"), named.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KvClientConfig.of("127.0.0.1:7400")
            .withConnectionSetup(ConnectionSetup.RDMACM).withTransport(Providers.TCP));
    }

    @Test
    void rdmacmWhereAutoFindsNoRdmaDeviceFailsTheConnectBeforeAnyNodeIsAsked()
    {
        // on a machine without RDMA, auto opens tcp: refused before the (unreachable) seed is tried
        org.junit.jupiter.api.Assumptions.assumeTrue(io.rdmakv.verbs.ibverbs.IbverbsProvider.INSTANCE
            .unavailableReason() != null, "an RDMA device is here: auto opens ibverbs");
        final KvConnectionException e = assertThrows(KvConnectionException.class, () -> KvClient.connect(
            KvClientConfig.of("192.0.2.1:7400").withConnectionSetup(ConnectionSetup.RDMACM)));
        assertTrue(e.getMessage().startsWith("--cm rdmacm needs the ibverbs transport"), e.getMessage());
    }
}
