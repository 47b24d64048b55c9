package io.rdmakv.client;

import io.rdmakv.peer.WaitStrategy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The client's choice of RDMA device: none by default, kept by every other {@code with*}. */
final class KvClientConfigTest
{
    @Test
    void noDeviceUnlessOneIsNamed()
    {
        assertNull(KvClientConfig.of("127.0.0.1:7400").device());
        assertNull(KvClientConfig.of("127.0.0.1:7400").withDevice("  ").device(), "blank: the first active device");
        assertEquals("rxe1", KvClientConfig.of("127.0.0.1:7400").withDevice(" rxe1 ").device());
    }

    @Test
    void everyOtherSettingKeepsTheDevice()
    {
        final KvClientConfig c = KvClientConfig.of("127.0.0.1:7400").withDevice("mlx5_1")
            .withTransport("ibverbs").withAuthToken("t").withOpTimeout(Duration.ofSeconds(3))
            .withConnectTimeout(Duration.ofSeconds(4)).withAsyncThreads(2).withMetrics(null)
            .withWaitStrategy(WaitStrategy.BLOCKING).withCacheEntries(0).withTls((ClientTls)null);
        assertEquals("mlx5_1", c.device());
        assertEquals("ibverbs", c.transport());
        assertEquals(WaitStrategy.BLOCKING, c.waitStrategy());
    }
}
