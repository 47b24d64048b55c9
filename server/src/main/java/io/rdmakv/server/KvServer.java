package io.rdmakv.server;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.HelloRefusedMessage;
import io.rdmakv.common.protocol.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.ReasonCode;
import io.rdmakv.common.protocol.RemoteRegion;
import io.rdmakv.server.bootstrap.BootstrapListener;
import io.rdmakv.server.control.ControlAgent;
import io.rdmakv.server.control.CountingErrorHandler;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.server.control.ServerSession;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One rdmakv node: its region, the transport, the bootstrap listener and the control agent. Clients
 * read and write the region with one-sided RDMA; this process only grants and reclaims space.
 */
public final class KvServer implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(KvServer.class.getName());
    private static final int CONTROL_CQ_CAPACITY = 1 << 16;

    private final ServerConfig config;
    private final ClusterMap clusterMap;
    private final byte[] clusterMapJson;
    private final byte[] token;
    private final BootstrapListener listener;
    private final Context context;
    private final ProtectionDomain pd;
    private final Region region;
    private final CompletionQueue cq;
    private final ServerCounters counters = new ServerCounters();
    private final ControlAgent agent;
    private final IndexScanner scanner;
    private final AgentRunner agentRunner;
    private final Thread agentThread;
    private final AtomicLong nextSessionId = new AtomicLong(ThreadLocalRandom.current().nextLong(1, 1L << 40));
    private volatile boolean shuttingDown;
    private boolean closed;

    private KvServer(final ServerConfig config) throws IOException
    {
        this.config = config;
        final RegionGeometry geometry = RegionGeometry.forMemory(config.memoryBytes(), config.chunkSize());
        this.token = config.authToken().getBytes(StandardCharsets.UTF_8);
        BootstrapListener bound = null;
        Context opened = null;
        ProtectionDomain allocated = null;
        Region created = null;
        CompletionQueue createdCq = null;
        try
        {
            bound = new BootstrapListener(new InetSocketAddress(config.listenHost(), config.listenPort()),
                this::openSession);
            this.clusterMap = loadClusterMap(config, bound.port());
            this.clusterMapJson = clusterMap.toJson().getBytes(StandardCharsets.UTF_8);
            opened = Providers.open(config.transport(), new VerbsConfig(config.device(), config.devicePort(),
                tcpBindHost(config)));
            allocated = opened.allocateProtectionDomain();
            created = new Region(allocated, geometry, config.nodeId(), config.hugePages());
            createdCq = opened.createCompletionQueue(Math.min(CONTROL_CQ_CAPACITY, opened.attributes().maxCqe()));
        }
        catch (final IOException | RuntimeException e)
        {
            closeQuietly(createdCq);
            closeQuietly(created);
            closeQuietly(allocated);
            closeQuietly(opened);
            closeQuietly(bound);
            throw e;
        }
        listener = bound;
        context = opened;
        pd = allocated;
        region = created;
        cq = createdCq;
        final DataAreaAllocator allocator = new DataAreaAllocator(geometry.dataLength(), KvBlockDescriptor.ALIGNMENT,
            config.graceNanos(), SpaceTiming.reclaimQuarantineNanos(config.graceNanos()));
        scanner = new IndexScanner(new CpuIndexAtomics(region.segment()), geometry);
        agent = new ControlAgent(cq, allocator, scanner, new LiveBlockCheck(region.segment(), geometry), geometry,
            counters, SystemNanoClock.INSTANCE, config.sessionQuotaFor(geometry.dataLength()));
        agentRunner = new AgentRunner(ControlAgent.idleStrategy(),
            new CountingErrorHandler(counters, ServerCounter.AGENT_ERRORS, "control agent"), null, agent);
        agentThread = AgentRunner.startOnThread(agentRunner);
        listener.start();
    }

    /**
     * Starts a node. Fails with a one-line reason: memory too small or not allocatable, a busy port,
     * a transport that cannot open, a cluster map that does not list this node.
     */
    public static KvServer start(final ServerConfig config) throws IOException
    {
        return new KvServer(config);
    }

    private static String tcpBindHost(final ServerConfig config)
    {
        return "0.0.0.0".equals(config.listenHost()) || "::".equals(config.listenHost()) ? "0.0.0.0" :
            config.listenHost();
    }

    private static ClusterMap loadClusterMap(final ServerConfig config, final int port) throws IOException
    {
        if (config.clusterFile() == null)
        {
            return ClusterMap.of(0, List.of(new ClusterNode(config.nodeId(), config.listenHost(), port)));
        }
        final ClusterMap map = ClusterMap.fromJson(Files.readString(config.clusterFile()));
        if (map.nodes().stream().noneMatch(n -> n.id() == config.nodeId()))
        {
            throw new IllegalArgumentException("cluster map " + config.clusterFile() + " does not list node id " +
                config.nodeId());
        }
        return map;
    }

    private BootstrapListener.Outcome openSession(final HelloMessage hello, final Socket socket)
    {
        final String peer = String.valueOf(socket.getRemoteSocketAddress());
        if (shuttingDown)
        {
            return refused(ReasonCode.SHUTTING_DOWN, "node " + config.nodeId() + " is shutting down");
        }
        if (token.length > 0 && !MessageDigest.isEqual(token, hello.authToken()))
        {
            LOG.log(System.Logger.Level.WARNING, "refused " + peer + ": wrong auth token");
            return refused(ReasonCode.AUTH_FAILED, "wrong auth token");
        }
        if (!context.providerName().equals(hello.endpoint().provider()))
        {
            return refused(ReasonCode.UNEXPECTED_MESSAGE, "this node runs the " + context.providerName() +
                " transport, the client " + hello.endpoint().provider());
        }
        ServerSession session = null;
        try
        {
            session = new ServerSession(nextSessionId.getAndIncrement(), peer, pd,
                MessageHeaderDescriptor.MAX_MESSAGE_LENGTH);
            final QueuePair qp = pd.createQueuePair(new QueuePairConfig(cq, cq, 16, ServerSession.RECV_BUFFERS, 1,
                1, 64));
            session.attach(qp, null);
            qp.modifyToInit(ConnectOptions.DEFAULT.withAccessFlags(AccessFlags.ALL_REMOTE));
            for (int i = 0; i < ServerSession.RECV_BUFFERS; i++)
            {
                if (!session.postReceive(i))
                {
                    throw new IllegalStateException("cannot post receive buffers");
                }
            }
            qp.modifyToRtr(hello.endpoint(), ConnectOptions.DEFAULT);
            qp.modifyToRts(ConnectOptions.DEFAULT);
            // Only an open session owns the bootstrap socket: a failed one must still answer HELLO_REFUSED on it.
            session.attach(qp, socket);
            agent.register(session);
            final ServerSession opened = session;
            final HelloOkMessage ok = new HelloOkMessage(hello.requestId(), MessageHeaderDescriptor.PROTOCOL_VERSION,
                config.nodeId(), qp.localEndpoint(),
                new RemoteRegion(region.indexRegion().address(), region.indexRegion().length(),
                    region.indexRegion().rkey()),
                new RemoteRegion(region.dataRegion().address(), region.dataRegion().length(),
                    region.dataRegion().rkey()),
                region.geometry(), clusterMapJson, session.id(), config.graceNanos());
            return new BootstrapListener.Outcome(ok, () -> agent.departed(opened));
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "cannot open a session for " + peer + ": " + e.getMessage());
            closeQuietly(session);
            return refused(ReasonCode.INTERNAL, "cannot open a session: " + e.getMessage());
        }
    }

    private static BootstrapListener.Outcome refused(final ReasonCode code, final String text)
    {
        return new BootstrapListener.Outcome(new HelloRefusedMessage(0, code.code(), text), null);
    }

    public int port()
    {
        return listener.port();
    }

    public ServerConfig config()
    {
        return config;
    }

    public ClusterMap clusterMap()
    {
        return clusterMap;
    }

    public RegionGeometry geometry()
    {
        return region.geometry();
    }

    public String transport()
    {
        return context.providerName();
    }

    public ServerCounters counters()
    {
        return counters;
    }

    public int sessionCount()
    {
        return agent.sessionCount();
    }

    public long freeBytes()
    {
        return counters.get(ServerCounter.FREE_BYTES);
    }

    /** The name of the opened device, e.g. {@code mlx5_0}, {@code rxe0}, {@code tcp0}. */
    public String deviceName()
    {
        return context.deviceName();
    }

    /** What the opened device can do: atomics, port state, link layer. */
    public io.rdmakv.verbs.DeviceAttributes deviceAttributes()
    {
        return context.attributes();
    }

    /** Whether the region was mapped for transparent huge pages and the kernel accepted the advice. */
    public boolean hugePagesAdvised()
    {
        return region.hugePagesAdvised();
    }

    /** Bytes of the data area freed or reclaimed and waiting out the grace period (or quarantine). */
    public long graceBytes()
    {
        return counters.get(ServerCounter.GRACE_BYTES);
    }

    /** Freed blocks and reclaimed ranges waiting out the grace period (or quarantine). */
    public long graceRanges()
    {
        return counters.get(ServerCounter.GRACE_RANGES);
    }

    /** Extents (chunks) granted since start. */
    public long grantedExtents()
    {
        return counters.get(ServerCounter.GRANTED_EXTENTS);
    }

    /**
     * Used index slots, counted by walking the whole index now (O(index size): callers cache it). 0 once
     * the node is closed.
     */
    public synchronized long usedSlots()
    {
        return closed ? 0 : scanner.usedSlots();
    }

    /**
     * Shuts down: stops accepting, tells connected clients (SHUTDOWN), closes their sessions,
     * deregisters the memory and releases the device. Bounded: a few hundred milliseconds.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        shuttingDown = true;
        listener.close();
        agent.execute(agent::announceShutdown);
        try
        {
            TimeUnit.MILLISECONDS.sleep(100);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        // Stops the loop; the agent's onClose departs every session still open, on the agent's thread.
        closeQuietly(agentRunner);
        if (!agent.isClosed() && !agentThread.isAlive())
        {
            agent.onClose(); // the loop ended with an Error, before the runner could close the agent
        }
        listener.closeConnections();
        closeQuietly(cq);
        closeQuietly(region);
        closeQuietly(pd);
        closeQuietly(context);
    }

    private static void closeQuietly(final AutoCloseable c)
    {
        if (c != null)
        {
            try
            {
                c.close();
            }
            catch (final Exception e)
            {
                LOG.log(System.Logger.Level.WARNING, "closing " + c + ": " + e.getMessage());
            }
        }
    }
}
