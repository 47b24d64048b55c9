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
    void aFewFailuresAreFreeThenTheBlockDoublesUpToItsCap() throws UnknownHostException
    {
        final AuthThrottle t = new AuthThrottle();
        final InetAddress a = ip(1);
        long now = 0;
        for (int i = 1; i < AuthThrottle.FREE_FAILURES; i++)
        {
            t.failed(a, now);
            assertEquals(0, t.blockedFor(a, now), "failure " + i + " is free");
        }
        t.failed(a, now);
        assertEquals(AuthThrottle.FIRST_BLOCK_NANOS, t.blockedFor(a, now));
        now += AuthThrottle.FIRST_BLOCK_NANOS;
        assertEquals(0, t.blockedFor(a, now));
        t.failed(a, now);
        assertEquals(2 * AuthThrottle.FIRST_BLOCK_NANOS, t.blockedFor(a, now), "doubles");
        for (int i = 0; i < 20; i++)
        {
            t.failed(a, now);
        }
        assertEquals(AuthThrottle.MAX_BLOCK_NANOS, t.blockedFor(a, now), "capped");
        assertEquals(0, t.blockedFor(ip(2), now), "another address is not held to it");
        t.succeeded(a);
        assertEquals(0, t.blockedFor(a, now), "a success forgets");
        assertEquals(AuthThrottle.FREE_FAILURES + 21, t.failures());
        assertEquals(3, t.throttled(), "the blocked look-ups were counted");
    }

    @Test
    void failuresSpreadBeyondTheWindowStayFree() throws UnknownHostException
    {
        final AuthThrottle t = new AuthThrottle();
        final InetAddress a = ip(3);
        for (int i = 0; i < 50; i++)
        {
            t.failed(a, i * (AuthThrottle.WINDOW_NANOS / 2 + S));
            assertEquals(0, t.blockedFor(a, i * (AuthThrottle.WINDOW_NANOS / 2 + S)));
        }
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
        assertTrue(t.blockedFor(InetAddress.getByAddress(new byte[] {10, 1, 0, 0}), 1) == 0,
            "the least recent addresses were forgotten");
    }
}
