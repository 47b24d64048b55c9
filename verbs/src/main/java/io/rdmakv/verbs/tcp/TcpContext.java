package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.VerbsException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code tcp} provider's device: a software NIC with one listening port. Peers' requesters
 * connect to it during RTR and are handed to the target queue pair's responder.
 */
final class TcpContext implements Context
{
    static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(
        16_384, 16, 1 << 20, Long.MAX_VALUE, 16, "GLOB", 1024, "ACTIVE", "TCP");

    private static final System.Logger LOG = System.getLogger(TcpContext.class.getName());

    private final String host;
    private final ServerSocketChannel listener;
    private final Thread acceptor;
    private final Map<Integer, TcpQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final Set<TcpProtectionDomain> domains = ConcurrentHashMap.newKeySet();
    private final Set<TcpCompletionQueue> completionQueues = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextQpNum = new AtomicInteger(ThreadLocalRandom.current().nextInt(1, 1 << 20));
    private volatile boolean closed;

    TcpContext(final VerbsConfig config)
    {
        this.host = config.tcpBindHost();
        try
        {
            listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(host, 0));
        }
        catch (final IOException | RuntimeException e)
        {
            throw new VerbsException("ibv_open_device", "tcp0: cannot listen on " + host + ": " + e.getMessage(), e);
        }
        acceptor = Thread.ofPlatform().daemon().name("rdmakv-tcp-accept-" + port()).start(this::acceptLoop);
    }

    String host()
    {
        return host;
    }

    int port()
    {
        return listener.socket().getLocalPort();
    }

    int nextQpNum()
    {
        return nextQpNum.getAndIncrement() & 0xffffff;
    }

    void register(final TcpQueuePair qp)
    {
        queuePairs.put(qp.qpNum(), qp);
    }

    void unregister(final TcpQueuePair qp)
    {
        queuePairs.remove(qp.qpNum(), qp);
    }

    void removed(final TcpProtectionDomain pd)
    {
        domains.remove(pd);
    }

    void removed(final TcpCompletionQueue cq)
    {
        completionQueues.remove(cq);
    }

    private void acceptLoop()
    {
        while (!closed)
        {
            final SocketChannel channel;
            try
            {
                channel = listener.accept();
            }
            catch (final IOException e)
            {
                if (!closed)
                {
                    LOG.log(System.Logger.Level.WARNING, "tcp0 accept failed: " + e);
                }
                return;
            }
            try
            {
                handshake(channel);
            }
            catch (final IOException | RuntimeException e)
            {
                LOG.log(System.Logger.Level.DEBUG, "tcp0 handshake failed: " + e);
                CloseHelper.quietClose(channel);
            }
        }
    }

    private void handshake(final SocketChannel channel) throws IOException
    {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        final ByteBuffer hello = ByteBuffer.allocate(TcpWire.HANDSHAKE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        while (hello.hasRemaining())
        {
            if (channel.read(hello) < 0)
            {
                throw new IOException("peer closed during handshake");
            }
        }
        hello.flip();
        if (hello.getInt(0) != TcpWire.HANDSHAKE_MAGIC)
        {
            throw new IOException("not an rdmakv tcp requester");
        }
        final int target = hello.getInt(4);
        final int rnrRetry = hello.get(12);
        final TcpQueuePair qp = queuePairs.get(target);
        final int status = qp == null ? TcpWire.HANDSHAKE_UNKNOWN_QP :
            qp.attachResponder(channel, rnrRetry) ? TcpWire.HANDSHAKE_OK : TcpWire.HANDSHAKE_QP_BUSY;
        final ByteBuffer reply = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, status);
        while (reply.hasRemaining())
        {
            channel.write(reply);
        }
        if (status != TcpWire.HANDSHAKE_OK)
        {
            CloseHelper.quietClose(channel);
        }
        else
        {
            qp.startResponder();
        }
    }

    @Override
    public String providerName()
    {
        return "tcp";
    }

    @Override
    public String deviceName()
    {
        return "tcp0";
    }

    @Override
    public DeviceAttributes attributes()
    {
        return ATTRIBUTES;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain()
    {
        checkOpen("ibv_alloc_pd");
        final TcpProtectionDomain pd = new TcpProtectionDomain(this);
        domains.add(pd);
        return pd;
    }

    @Override
    public CompletionQueue createCompletionQueue(final int capacity)
    {
        checkOpen("ibv_create_cq");
        if (capacity <= 0 || capacity > ATTRIBUTES.maxCqe())
        {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL, "capacity " + capacity + " outside 1.." +
                ATTRIBUTES.maxCqe());
        }
        final TcpCompletionQueue cq = new TcpCompletionQueue(this, capacity);
        completionQueues.add(cq);
        return cq;
    }

    private void checkOpen(final String call)
    {
        if (closed)
        {
            throw new VerbsException(call, Errno.ENODEV, "device tcp0 is closed");
        }
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        if (!domains.isEmpty() || !completionQueues.isEmpty())
        {
            throw new VerbsException("ibv_close_device", Errno.EBUSY, "tcp0 still has " + domains.size() +
                " protection domain(s) and " + completionQueues.size() + " completion queue(s) open: close them first");
        }
        closed = true;
        CloseHelper.quietClose(listener);
        try
        {
            acceptor.join(1000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString()
    {
        return "tcp0@" + host + ":" + port();
    }
}
