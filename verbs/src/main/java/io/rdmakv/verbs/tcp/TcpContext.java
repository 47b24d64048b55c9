package io.rdmakv.verbs.tcp;

import org.agrona.CloseHelper;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.VerbsException;
import io.rdmakv.verbs.VerbsResource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code tcp} provider's device: a software NIC with one listening port. Peers' requesters
 * connect to it during RTR and are handed to the target queue pair's responder.
 */
final class TcpContext extends VerbsResource implements Context
{
    static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(
        16_384, 16, 1 << 20, Long.MAX_VALUE, 16, "GLOB", 1024, "ACTIVE", "TCP");

    private static final System.Logger LOG = System.getLogger(TcpContext.class.getName());

    private final String host;
    private final ServerSocketChannel listener;
    private final Thread acceptor;
    private final Map<Integer, TcpQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final AtomicInteger nextQpNum = new AtomicInteger(ThreadLocalRandom.current().nextInt(1, 1 << 20));

    TcpContext(final VerbsConfig config)
    {
        super("ibv_close_device");
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

    private void acceptLoop()
    {
        while (!isClosed())
        {
            final SocketChannel channel;
            try
            {
                channel = listener.accept();
            }
            catch (final IOException e)
            {
                if (!isClosed())
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
        final TcpHandshake.Hello hello = TcpHandshake.readHello(channel);
        final TcpQueuePair qp = queuePairs.get(hello.targetQpNum());
        final int status = qp == null ? TcpWire.HANDSHAKE_UNKNOWN_QP :
            qp.attachResponder(channel, hello.rnrRetry()) ? TcpWire.HANDSHAKE_OK : TcpWire.HANDSHAKE_QP_BUSY;
        TcpHandshake.reply(channel, status);
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
        ensureOpen("ibv_alloc_pd");
        return adopt(new TcpProtectionDomain(this));
    }

    @Override
    public CompletionQueue createCompletionQueue(final int capacity)
    {
        ensureOpen("ibv_create_cq");
        if (capacity <= 0 || capacity > ATTRIBUTES.maxCqe())
        {
            throw new VerbsException("ibv_create_cq", Errno.EINVAL, "capacity " + capacity + " outside 1.." +
                ATTRIBUTES.maxCqe());
        }
        return adopt(new TcpCompletionQueue(this, capacity));
    }

    @Override
    protected String resourceName()
    {
        return "device tcp0";
    }

    /** A closed software device is gone, as a hot-unplugged NIC: {@code ENODEV}. */
    @Override
    protected int closedErrno()
    {
        return Errno.ENODEV;
    }

    @Override
    protected String openChildrenMessage()
    {
        return "tcp0 still has " + openChildren(TcpProtectionDomain.class) + " protection domain(s) and " +
            openChildren(TcpCompletionQueue.class) + " completion queue(s) open: close them first";
    }

    /** Stops listening and waits (up to a second) for the acceptor thread. */
    @Override
    protected int release()
    {
        CloseHelper.quietClose(listener);
        try
        {
            acceptor.join(1000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    @Override
    public String toString()
    {
        return "tcp0@" + host + ":" + port();
    }
}
