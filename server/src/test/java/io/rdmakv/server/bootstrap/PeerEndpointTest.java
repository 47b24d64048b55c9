package io.rdmakv.server.bootstrap;

import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A node connects a session's tcp queue pair only to the host its HELLO came from. */
class PeerEndpointTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @Test
    void endpointOnTheHelloHostIsPinnedToItsAddress()
    {
        final QueuePairEndpoint e = QueuePairEndpoint.tcp(5, 6, "127.0.0.1", 4000, 99);
        assertEquals(e, PeerEndpoint.pin(e, LOOPBACK));
    }

    @Test
    void aNameIsResolvedOnceAndTheAddressUsed()
    {
        final QueuePairEndpoint e = QueuePairEndpoint.tcp(5, 6, "localhost", 4000, 99);
        final InetAddress localhost = InetAddress.getLoopbackAddress();
        assertEquals(e.withHost(localhost.getHostAddress()), PeerEndpoint.pin(e, localhost));
    }

    @Test
    void endpointOnAnotherHostIsRefused()
    {
        assertNull(PeerEndpoint.pin(QueuePairEndpoint.tcp(5, 6, "127.0.0.2", 4000, 99), LOOPBACK));
        assertNull(PeerEndpoint.pin(QueuePairEndpoint.tcp(5, 6, "10.9.8.7", 4000, 99), LOOPBACK));
        assertNull(PeerEndpoint.pin(QueuePairEndpoint.tcp(5, 6, "0.0.0.0", 4000, 99), LOOPBACK));
        assertNull(PeerEndpoint.pin(QueuePairEndpoint.tcp(5, 6, "", 4000, 99), LOOPBACK));
        assertNull(PeerEndpoint.pin(QueuePairEndpoint.tcp(5, 6, "no-such-host.invalid", 4000, 99), LOOPBACK));
    }

    @Test
    void ibverbsEndpointsAreLeftAlone()
    {
        final QueuePairEndpoint e = new QueuePairEndpoint("ibverbs", 5, 6, 7, new byte[16], 5, "", 0);
        assertSame(e, PeerEndpoint.pin(e, LOOPBACK));
    }
}
