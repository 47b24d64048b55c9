package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import io.rdmakv.verbs.ibverbs.bindings.RdmacmLibrary;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the rdma_cm code does without a device: the messages when librdmacm is missing or the kernel has no
 * rdma_cm, socket addresses to C and back, event descriptions, argument checks. The connection itself is
 * {@link RdmaCmLoopbackTest} (device only).
 */
class RdmaCmTest
{
    @Test
    void aMissingLibrdmacmIsNamedWithItsPackage()
    {
        final String failure = RdmacmLibrary.loadFailureOf("librdmacm-missing-for-this-test.so.1");
        assertTrue(failure.contains("librdmacm-missing-for-this-test.so.1 cannot be loaded"), failure);
        assertTrue(failure.contains("librdmacm1") && failure.contains("rdma-core"), failure);
    }

    @Test
    void withoutRdmaInTheKernelListeningSaysWhy()
    {
        assumeTrue(IbverbsProvider.INSTANCE.unavailableReason() != null,
            "this machine has an RDMA device: the no-device path is not reachable");
        final VerbsException e = assertThrows(VerbsException.class,
            () -> RdmaCmListener.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1));
        assertEquals("rdma_create_event_channel", e.call(), e.getMessage());
        if (RdmacmLibrary.loadFailure() != null)
        {
            assertTrue(e.getMessage().contains("librdmacm1"), e.getMessage());
        }
        else
        {
            assertTrue(e.getMessage().contains("rdma_cm is not usable here"), e.getMessage());
        }
        System.out.println("without a device: " + e.getMessage());
    }

    @Test
    void tooMuchPrivateDataIsRefusedBeforeAnythingIsCreated()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RdmaCmConnector.connect(null, new InetSocketAddress(InetAddress.getLoopbackAddress(), 1),
                new byte[RdmaCmConnector.MAX_PRIVATE_DATA + 1], ConnectOptions.DEFAULT, TimeUnit.SECONDS.toNanos(1)));
        assertTrue(e.getMessage().contains("at most 56 bytes"), e.getMessage());
    }

    @Test
    void socketAddressesGoToCAndBack() throws Exception
    {
        try (Arena arena = Arena.ofConfined())
        {
            for (final InetSocketAddress address : new InetSocketAddress[] {
                new InetSocketAddress(InetAddress.getByName("10.77.0.1"), 7471),
                new InetSocketAddress(InetAddress.getByName("fe80::1"), 65535),
                new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0)})
            {
                final MemorySegment sockaddr = RdmaCmAddresses.sockaddr(arena, address);
                final MemorySegment storage = arena.allocate(128, 8);
                MemorySegment.copy(sockaddr, 0, storage, 0, sockaddr.byteSize());
                assertEquals(address, RdmaCmAddresses.read(storage));
            }
            // network order: port 7471 = 0x1d2f is bytes 1d 2f; family AF_INET in host order
            final MemorySegment sin = RdmaCmAddresses.sockaddr(arena,
                new InetSocketAddress(InetAddress.getByName("10.77.0.1"), 7471));
            assertEquals(16, sin.byteSize());
            assertEquals(RdmaCmConstants.AF_INET, sin.get(JAVA_SHORT, 0));
            assertEquals(0x1d, sin.get(JAVA_BYTE, 2));
            assertEquals(0x2f, sin.get(JAVA_BYTE, 3));
            assertEquals(10, sin.get(JAVA_BYTE, 4));
        }
    }

    @Test
    void failuresNameTheEventAndItsStatus()
    {
        final CmEvent rejected = new CmEvent(RdmaCmConstants.RDMA_CM_EVENT_REJECTED, "RDMA_CM_EVENT_REJECTED", 28, 0,
            new byte[0], 0, 0);
        final RdmaCmException e = new RdmaCmException("rdma_connect", "10.77.0.1:7471", rejected);
        assertTrue(e.rejected());
        assertEquals(Errno.ECONNREFUSED, e.errno());
        assertEquals("rdma_connect: 10.77.0.1:7471: RDMA_CM_EVENT_REJECTED (status 28: rejected by the peer) " +
            "(ECONNREFUSED)", e.getMessage());

        final CmEvent unreachable = new CmEvent(RdmaCmConstants.RDMA_CM_EVENT_UNREACHABLE, "RDMA_CM_EVENT_UNREACHABLE",
            -Errno.ETIMEDOUT, 0, new byte[0], 0, 0);
        final RdmaCmException u = new RdmaCmException("rdma_connect", "peer", unreachable);
        assertEquals(Errno.ETIMEDOUT, u.errno());
        assertTrue(u.getMessage().contains("RDMA_CM_EVENT_UNREACHABLE (status -110 ETIMEDOUT)"), u.getMessage());

        final RdmaCmException t = RdmaCmException.timeout("rdma_resolve_addr", "peer", "RDMA_CM_EVENT_ADDR_RESOLVED");
        assertEquals(null, t.event());
        assertEquals(Errno.ETIMEDOUT, t.errno());
        assertTrue(t.getMessage().contains("no RDMA_CM_EVENT_ADDR_RESOLVED in time"), t.getMessage());
    }
}
