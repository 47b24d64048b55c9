package io.rdmakv.server.bootstrap;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AuthThrottleTest
{
    private static final long S = 1_000_000_000L;

    private static InetAddress ip(final int last) throws UnknownHostException
    {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte)last});
    }

    @Test
    void aFewFailuresAreFreeThenTheDelayDoublesUpToItsCap() throws UnknownHostException
    {
        final AuthThrottle t = new AuthThrottle();
        final InetAddress a = ip(1);
        for (int i = 1; i <= AuthThrottle.FREE_FAILURES; i++)
        {
            assertEquals(0, t.failed(a, 0), "failure " + i + " is free");
        }
        assertEquals(AuthThrottle.FIRST_DELAY_NANOS, t.failed(a, 0));
        assertEquals(2 * AuthThrottle.FIRST_DELAY_NANOS, t.failed(a, 0), "doubles");
        assertEquals(4 * AuthThrottle.FIRST_DELAY_NANOS, t.failed(a, 0), "doubles");
        for (int i = 0; i < 20; i++)
        {
            assertEquals(AuthThrottle.MAX_DELAY_NANOS, t.failed(a, 0), "capped");
        }
        assertEquals(0, t.failed(ip(2), 0), "another address is not held to it");
        assertEquals(AuthThrottle.FREE_FAILURES + 24, t.failures());
        assertEquals(23, t.throttled(), "the held-back refusals were counted");
    }

    @Test
    void failuresSpreadBeyondTheWindowStayFree() throws UnknownHostException
    {
        final AuthThrottle t = new AuthThrottle();
        final InetAddress a = ip(3);
        for (int i = 0; i < 50; i++)
        {
            assertEquals(0, t.failed(a, i * (AuthThrottle.WINDOW_NANOS / 2 + S)));
        }
    }

    @Test
    void aSteadyFloodStaysThrottledPastTheWindowAndIsForgottenAfterIt() throws UnknownHostException
    {
        final AuthThrottle t = new AuthThrottle();
        final InetAddress a = ip(4);
        final long period = S / 5;
        long now = 0;
        for (int i = 0; i < 150; i++, now += period)
        {
            final long delay = t.failed(a, now);
            assertTrue(i < AuthThrottle.FREE_FAILURES ? delay == 0 : delay > 0, "failure " + i + ": " + delay);
        }
        now += AuthThrottle.WINDOW_NANOS + AuthThrottle.MAX_DELAY_NANOS;
        assertEquals(0, t.failed(a, now), "once the flood has stopped, a new window begins");
    }

    @Test
    void memoryIsBoundedWhateverTheNumberOfAddresses() throws UnknownHostException
    {
        final AuthThrottle t = new AuthThrottle();
        for (int i = 0; i < AuthThrottle.MAX_ADDRESSES + 500; i++)
        {
            final InetAddress a = InetAddress.getByAddress(new byte[] {10, 1, (byte)(i >> 8), (byte)i});
            for (int k = 0; k < AuthThrottle.FREE_FAILURES; k++)
            {
                t.failed(a, 0);
            }
        }
        assertEquals(0, t.failed(InetAddress.getByAddress(new byte[] {10, 1, 0, 0}), 1),
            "the least recent addresses were forgotten");
    }
}
