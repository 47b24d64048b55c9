package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ConnectionManager;
import io.rdmakv.verbs.QueuePair;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.function.Consumer;

/**
 * {@link ConnectionManager} of an {@link IbvContext}: {@link RdmaCmListener} and {@link RdmaCmConnector} over the
 * provider-neutral interface, for queue pairs of this context.
 */
final class IbvConnectionManager implements ConnectionManager
{
    private final IbvContext context;

    IbvConnectionManager(final IbvContext context)
    {
        this.context = context;
    }

    /**
     * From the context's GID when it is IPv4-mapped ({@code ::ffff:a.b.c.d}, RoCE v2 on an addressed interface);
     * else the first IPv4 address of the interface whose MAC the GID starts with (iWARP: siw's GID is its netdev's
     * MAC); else null.
     */
    @Override
    public InetAddress deviceAddress()
    {
        final byte[] gid = context.gid();
        try
        {
            boolean mapped = gid[10] == (byte)0xff && gid[11] == (byte)0xff;
            for (int i = 0; i < 10; i++)
            {
                mapped &= gid[i] == 0;
            }
            if (mapped)
            {
                return InetAddress.getByAddress(Arrays.copyOfRange(gid, 12, 16));
            }
            final byte[] mac = Arrays.copyOf(gid, 6);
            if (Arrays.equals(mac, new byte[6]))
            {
                return null;
            }
            final Enumeration<NetworkInterface> interfaces = NetworkInterface.getNetworkInterfaces();
            while (interfaces.hasMoreElements())
            {
                final NetworkInterface nif = interfaces.nextElement();
                if (Arrays.equals(mac, nif.getHardwareAddress()))
                {
                    final Enumeration<InetAddress> addresses = nif.getInetAddresses();
                    while (addresses.hasMoreElements())
                    {
                        final InetAddress address = addresses.nextElement();
                        if (address instanceof Inet4Address)
                        {
                            return address;
                        }
                    }
                }
            }
            return null;
        }
        catch (final UnknownHostException | SocketException e)
        {
            return null;
        }
    }

    @Override
    public Listener listen(final InetSocketAddress address, final int backlog)
    {
        final RdmaCmListener listener = RdmaCmListener.listen(address, backlog);
        return new Listener()
        {
            @Override
            public InetSocketAddress address()
            {
                return listener.localAddress();
            }

            @Override
            public Connection accept(final long timeoutNanos, final long establishNanos, final ConnectOptions options,
                final Decision decision)
            {
                return listener.accept(timeoutNanos, establishNanos, options, new RdmaCmListener.Decision()
                {
                    @Override
                    public IbvQueuePair queuePairFor(final byte[] privateData, final InetSocketAddress peer,
                        final String device)
                    {
                        final QueuePair qp = decision.queuePairFor(privateData, peer);
                        return qp == null ? null : own(qp);
                    }

                    @Override
                    public void initialized(final IbvQueuePair qp)
                    {
                        decision.initialized(qp);
                    }
                });
            }

            @Override
            public long rejectedCount()
            {
                return listener.rejectedCount();
            }

            @Override
            public void close()
            {
                listener.close();
            }
        };
    }

    @Override
    public Connection connect(final QueuePair qp, final InetSocketAddress remote, final byte[] privateData,
        final ConnectOptions options, final long timeoutNanos, final Consumer<QueuePair> initialized)
    {
        return RdmaCmConnector.connect(own(qp), remote, privateData, options, timeoutNanos, initialized::accept);
    }

    private IbvQueuePair own(final QueuePair qp)
    {
        if (!(qp instanceof IbvQueuePair ibv) || ibv.ibvContext() != context)
        {
            throw new IllegalArgumentException(qp + " is not a queue pair of " + context.deviceName());
        }
        return ibv;
    }
}
