package io.rdmakv.server.bootstrap;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Held-back refusals are bounded per address and in all; one over either bound is answered at once. */
class TarpitTest
{
    private static InetAddress ip(final int last) throws UnknownHostException
    {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte)last});
    }

    @Test
    void itTakesASmallShareOfTheConnectionLimit()
    {
        assertEquals(0, Tarpit.capacityFor(15), "too few connections to spare any");
        assertEquals(18, Tarpit.capacityFor(298));
        assertEquals(Tarpit.MAX_CAPACITY, Tarpit.capacityFor(16_384));
    }

    @Test
    void oneOverTheAddressesShareOrTheWholeIsAnsweredAtOnce() throws Exception
    {
        final Tarpit tarpit = new Tarpit(Tarpit.PER_ADDRESS + 1);
        final long hold = TimeUnit.SECONDS.toNanos(2);
        final List<Thread> held = new ArrayList<>();
        for (int i = 0; i < Tarpit.PER_ADDRESS; i++)
        {
            held.add(Thread.ofVirtual().start(() -> tarpit.hold(InetAddress.getLoopbackAddress(), hold)));
        }
        final InetAddress other = ip(1);
        held.add(Thread.ofVirtual().start(() -> tarpit.hold(other, hold)));
        while (tarpit.held() < Tarpit.PER_ADDRESS + 1)
        {
            Thread.sleep(5);
        }
        final long t0 = System.nanoTime();
        assertFalse(tarpit.hold(InetAddress.getLoopbackAddress(), hold), "over the address's share");
        assertFalse(tarpit.hold(ip(2), hold), "over the whole");
        assertTrue(System.nanoTime() - t0 < hold / 2, "both answered at once");
        assertEquals(2, tarpit.overflowed());
        for (final Thread t : held)
        {
            t.join();
        }
        assertEquals(0, tarpit.held());
        assertTrue(tarpit.hold(ip(2), 1), "room again");
    }
}
