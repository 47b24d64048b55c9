package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import io.rdmakv.verbs.ibverbs.layout.SockaddrIn;
import io.rdmakv.verbs.ibverbs.layout.SockaddrIn6;
import io.rdmakv.verbs.ibverbs.layout.SockaddrStorage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** Socket addresses between Java and {@code struct sockaddr_in} / {@code sockaddr_in6}, for rdma_cm. */
final class RdmaCmAddresses
{
    private static final ValueLayout.OfShort PORT = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    private RdmaCmAddresses()
    {
    }

    /** A {@code struct sockaddr_in} or {@code sockaddr_in6} for {@code address}, in {@code arena}. */
    static MemorySegment sockaddr(final Arena arena, final InetSocketAddress address)
    {
        if (address.isUnresolved())
        {
            throw new IllegalArgumentException("unresolved address " + address);
        }
        final byte[] ip = address.getAddress().getAddress();
        if (address.getAddress() instanceof Inet4Address)
        {
            final MemorySegment sin = arena.allocate(SockaddrStorage.LAYOUT);
            sin.set(JAVA_SHORT, SockaddrIn.SIN_FAMILY, (short)RdmaCmConstants.AF_INET);
            sin.set(PORT, SockaddrIn.SIN_PORT, (short)address.getPort());
            MemorySegment.copy(ip, 0, sin, JAVA_BYTE, SockaddrIn.SIN_ADDR, 4);
            return sin.asSlice(0, SockaddrIn.SIZE);
        }
        final MemorySegment sin6 = arena.allocate(SockaddrStorage.LAYOUT);
        sin6.set(JAVA_SHORT, SockaddrIn6.SIN6_FAMILY, (short)RdmaCmConstants.AF_INET6);
        sin6.set(PORT, SockaddrIn6.SIN6_PORT, (short)address.getPort());
        MemorySegment.copy(ip, 0, sin6, JAVA_BYTE, SockaddrIn6.SIN6_ADDR, 16);
        sin6.set(JAVA_INT, SockaddrIn6.SIN6_SCOPE_ID, ((Inet6Address)address.getAddress()).getScopeId());
        return sin6.asSlice(0, SockaddrIn6.SIZE);
    }

    /** The address in a {@code struct sockaddr_storage}, or null when it is neither IPv4 nor IPv6. */
    static InetSocketAddress read(final MemorySegment storage)
    {
        final int family = storage.get(JAVA_SHORT, SockaddrStorage.SS_FAMILY);
        try
        {
            if (family == RdmaCmConstants.AF_INET)
            {
                final byte[] ip = storage.asSlice(SockaddrIn.SIN_ADDR, 4).toArray(JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), storage.get(PORT, SockaddrIn.SIN_PORT) & 0xffff);
            }
            if (family == RdmaCmConstants.AF_INET6)
            {
                final byte[] ip = storage.asSlice(SockaddrIn6.SIN6_ADDR, 16).toArray(JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), storage.get(PORT, SockaddrIn6.SIN6_PORT) & 0xffff);
            }
            return null;
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalStateException(e); // not for a 4- or 16-byte address
        }
    }
}
