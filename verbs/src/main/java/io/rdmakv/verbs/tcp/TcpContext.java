package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;
import io.rdmakv.verbs.util.FatalLatch;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code tcp} provider's device: a software NIC with one listening port. Peers' requesters
 * connect to it during RTR ({@link TcpAcceptor}) and, once their hello proves they are the peer the
 * target queue pair expects, are handed to its responder, which the device's {@link TcpResponderEngine}
 * serves. Queue pair numbers, memory region keys and
 * connection secrets are drawn from SecureRandom: none can be guessed from another.
 */
final class TcpContext extends VerbsResource implements Context
{
    static final DeviceAttributes ATTRIBUTES = new DeviceAttributes(
        16_384, 16, 1 << 20, Long.MAX_VALUE, 16, "GLOB", 1024, "ACTIVE", "TCP");
    /**
     * The device's atomic capability, read when it opens: {@code GLOB} (the default: its responder executes
     * remote atomics as CPU CAS, atomic against the host's own) or {@code NONE}, a device without remote atomics
     * (siw, some iWARP NICs), whose responder refuses every atomic request as such a device does.
     */
    static final String ATOMICS_PROPERTY = "rdmakv.tcp.atomics";

    private static final System.Logger LOG = System.getLogger(TcpContext.class.getName());

    private final String host;
    private final ServerSocketChannel listener;
    private final int handshakeTimeoutMs;
    private final SecureRandom random = new SecureRandom();
    private final TcpAcceptor acceptor;
    private final FatalLatch fatal = new FatalLatch();
    private final Map<Integer, TcpQueuePair> queuePairs = new ConcurrentHashMap<>();
    private final TcpResponderEngine engine;
    private final DeviceAttributes attributes;

    TcpContext(final VerbsConfig config)
    {
        super("ibv_close_device");
        this.host = config.tcpBindHost();
        this.handshakeTimeoutMs = config.handshakeTimeoutMs();
        attributes = attributesFromSystemProperties();
        try
        {
            engine = TcpResponderEngine.fromSystemProperties("rdmakv-tcp-responder-engine");
        }
        catch (final IllegalArgumentException e)
        {
            throw new VerbsException("ibv_open_device", Errno.EINVAL, "tcp0: " + e.getMessage());
        }
        try
        {
            listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(host, 0));
        }
        catch (final IOException | RuntimeException e)
        {
            throw new VerbsException("ibv_open_device", "tcp0: cannot listen on " + host + ": " + e.getMessage(), e);
        }
        acceptor = new TcpAcceptor(listener, this::admit, handshakeTimeoutMs, "rdmakv-tcp-accept-" + port(),
            fatal::trip);
    }

    /** The responder engine that serves this device's inbound connections. */
    TcpResponderEngine engine()
    {
        return engine;
    }

    String host()
    {
        return host;
    }

    int port()
    {
        return listener.socket().getLocalPort();
    }

    int handshakeTimeoutMs()
    {
        return handshakeTimeoutMs;
    }

    /**
     * A queue pair number no open queue pair of this device has: 32 random bits (SecureRandom), never 0,
     * so a peer cannot guess a neighbour's from its own.
     */
    int nextQpNum()
    {
        int qpNum;
        do
        {
            qpNum = random.nextInt();
        }
        while (qpNum == 0 || queuePairs.containsKey(qpNum));
        return qpNum;
    }

    /** 32 random bits (SecureRandom), never 0: memory region keys. */
    int randomKey()
    {
        int key;
        do
        {
            key = random.nextInt();
        }
        while (key == 0);
        return key;
    }

    /** 64 random bits (SecureRandom), never 0: a queue pair's connection secret. */
    long newSecret()
    {
        long secret;
        do
        {
            secret = random.nextLong();
        }
        while (secret == 0);
        return secret;
    }

    void register(final TcpQueuePair qp)
    {
        if (queuePairs.putIfAbsent(qp.qpNum(), qp) != null)
        {
            throw new VerbsException("ibv_create_qp", Errno.EBUSY, "queue pair number " + qp.qpNum() + " taken");
        }
    }

    void unregister(final TcpQueuePair qp)
    {
        queuePairs.remove(qp.qpNum(), qp);
    }

    /**
     * Decides a requester's hello: the target queue pair must exist and the secret must be the target's
     * (compared in constant time); then the queue pair's own rules decide ({@link TcpQueuePair#attachInbound}).
     */
    int admit(final TcpHandshake.Hello hello, final SocketChannel channel)
    {
        final TcpQueuePair qp = queuePairs.get(hello.targetQpNum());
        final boolean secretMatches = TcpHandshake.sameSecret(qp == null ? 0 : qp.secret(), hello.secret());
        if (qp == null || !secretMatches)
        {
            return TcpWire.HANDSHAKE_REFUSED;
        }
        return qp.attachInbound(channel, hello.sourceQpNum(), hello.rnrRetry());
    }

    /** Counts a connection a queue pair dropped at RTR because it came from another peer than RTR names. */
    void countRejected()
    {
        acceptor.countRejected();
    }

    @Override
    public long rejectedConnections()
    {
        return acceptor.rejectedConnections();
    }

    /** Of {@link #rejectedConnections()}: handshakes closed because their deadline passed. */
    long timedOutHandshakes()
    {
        return acceptor.timedOutHandshakes();
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
        return attributes;
    }

    /** Whether the device executes remote atomics ({@value #ATOMICS_PROPERTY} not {@code NONE}). */
    boolean atomics()
    {
        return !"NONE".equals(attributes.atomicCapability());
    }

    /** {@link #ATTRIBUTES} with the atomic capability {@value #ATOMICS_PROPERTY} asks for (a bad value fails the open). */
    private static DeviceAttributes attributesFromSystemProperties()
    {
        final String text = System.getProperty(ATOMICS_PROPERTY);
        if (text == null || text.isBlank() || "GLOB".equals(text.trim()))
        {
            return ATTRIBUTES;
        }
        if (!"NONE".equals(text.trim()))
        {
            throw new VerbsException("ibv_open_device", Errno.EINVAL, "tcp0: " + ATOMICS_PROPERTY +
                " must be GLOB or NONE, not '" + text + "'");
        }
        final DeviceAttributes a = ATTRIBUTES;
        return new DeviceAttributes(a.maxQpWr(), a.maxSge(), a.maxCqe(), a.maxMrSize(), a.maxQpRdAtomic(), "NONE",
            a.maxInlineData(), a.portState(), a.linkLayer());
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

    @Override
    public void onFatal(final java.util.function.Consumer<String> listener)
    {
        fatal.onTrip(listener);
    }

    /** Stops listening, ends the handshakes in progress and waits (up to a second) for the acceptor thread. */
    @Override
    protected int release()
    {
        acceptor.close();
        engine.close();
        return 0;
    }

    @Override
    public String toString()
    {
        return "tcp0@" + host + ":" + port();
    }
}
