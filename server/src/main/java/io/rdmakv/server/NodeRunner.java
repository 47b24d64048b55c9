package io.rdmakv.server;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.common.tls.TlsSetupException;
import io.rdmakv.server.cluster.ClusterMembership;
import io.rdmakv.server.config.ConnectionDefaults;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.cluster.ZooKeeperNode;
import io.rdmakv.server.config.ProtectedMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.Readiness;
import io.rdmakv.server.metrics.ServerMetrics;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs a node for {@code kvserver}: starts it, prints the self-check, serves metrics when asked, says
 * "kvserver: ready", and on SIGTERM or SIGINT stops it (not ready, SHUTDOWN to clients, sessions closed,
 * memory deregistered) and returns 0. A fatal error (a listener that cannot go on) stops it the same way,
 * after one line "kvserver: fatal: reason", and returns {@link KvServerCommand#EXIT_FATAL}.
 */
final class NodeRunner
{
    /** The line a launcher waits for: the region is registered and clients are accepted. */
    static final String READY_LINE = "kvserver: ready";

    private NodeRunner()
    {
    }

    static int run(final ServerConfig config, final PrintWriter out, final PrintWriter err)
        throws InterruptedException
    {
        final CountDownLatch stop = new CountDownLatch(1);
        ShutdownSignals.onTerminate(stop::countDown);
        final KvServer server;
        try
        {
            server = KvServer.start(config);
        }
        catch (final Exception e)
        {
            err.println("kvserver: " + e.getMessage());
            err.flush();
            return e instanceof ClusterMembership.InvalidMembershipException ||
                e instanceof ProtectedMode.RefusedException || e instanceof TlsSetupException ?
                KvServerCommand.EXIT_USAGE : KvServerCommand.EXIT_START_FAILED;
        }
        ZooKeeperNode cluster = null;
        if (config.zookeeper() != null)
        {
            try
            {
                cluster = ZooKeeperNode.start(config, server);
            }
            catch (final Exception e)
            {
                err.println("kvserver: cannot join cluster " + config.zookeeper().clusterName() + " at " +
                    config.zookeeper().connect() + ": " + e.getMessage());
                err.flush();
                server.close();
                return KvServerCommand.EXIT_START_FAILED;
            }
        }
        final NodeRole role = cluster == null ? null : cluster.role();
        final Readiness readiness = new Readiness();
        readiness.requires(readyWhen(server, role));
        server.health().onFatal(reason -> stop.countDown());
        MetricsEndpoint endpoint = null;
        if (config.metricsEnabled())
        {
            final PrometheusRegistry registry = new PrometheusRegistry();
            if (role == null)
            {
                ServerMetrics.register(registry, server, readiness, ServerMetrics.DEFAULT_INDEX_SCAN_MAX_AGE_NANOS);
            }
            else
            {
                ServerMetrics.register(registry, server, readiness, ServerMetrics.DEFAULT_INDEX_SCAN_MAX_AGE_NANOS,
                    role);
            }
            try
            {
                endpoint = MetricsEndpoint.start(config.metricsHost(), config.metricsPort(), registry, readiness);
            }
            catch (final IOException e)
            {
                err.println("kvserver: " + e.getMessage());
                err.flush();
                closeQuietly(cluster);
                server.close();
                return KvServerCommand.EXIT_START_FAILED;
            }
        }
        out.printf("kvserver node %d listening on %s:%d, transport %s, region %d bytes (%d index slots, %d data " +
                "bytes), grace %d ms, lease %d ms (heartbeats every %d ms)%n", config.nodeId(), config.listenHost(),
            server.port(), server.transport(), server.geometry().regionLength(), server.geometry().slotCount(),
            server.geometry().dataLength(), TimeUnit.NANOSECONDS.toMillis(config.graceNanos()),
            TimeUnit.NANOSECONDS.toMillis(config.leaseTimeoutNanos()),
            TimeUnit.NANOSECONDS.toMillis(config.heartbeatIntervalNanos()));
        SelfCheck.report(config, server).forEach(out::println);
        out.println("kvserver: bootstrap " + (config.tls() == null ? "without TLS" : "TLS 1.3" +
            (config.tls().requiresClientCertificates() ? ", client certificates required" : "")) + ", auth " +
            (config.authToken().isEmpty() ? "token off" : "token on") + ", at most " +
            server.connectionLimit().max() + " connections" + (config.maxConnections() > 0 ? " (--max-connections)" :
            " (from the descriptor limit " + ConnectionDefaults.processDescriptorLimit() + ")"));
        ProtectedMode.warnings(config, server.port()).forEach(line -> err.println("kvserver: " + line));
        final long descriptors = ConnectionDefaults.processDescriptorLimit();
        if (config.maxConnections() > 0 && descriptors > 0 &&
            config.maxConnections() > ConnectionDefaults.defaultFor(descriptors))
        {
            err.println("kvserver: warning: --max-connections " + config.maxConnections() + " is above the " +
                ConnectionDefaults.defaultFor(descriptors) + " the descriptor limit " + descriptors + " leaves room for: " +
                "a flood of connections can exhaust the descriptors and end the node");
        }
        err.flush();
        if (endpoint != null)
        {
            out.printf("kvserver: metrics on http://%s:%d/metrics (readiness /ready, liveness /live)%n",
                config.metricsHost(), endpoint.port());
        }
        if (config.zookeeper() != null)
        {
            out.println("kvserver: member of cluster " + config.zookeeper().clusterName() + " at " +
                config.zookeeper().connect() + " (replicas " + config.zookeeper().replicas() + " if it creates it); " +
                "serving once a cluster map lists this node");
        }
        readiness.ready();
        out.println(READY_LINE);
        out.flush();
        stop.await();
        readiness.stopping();
        final String fatal = server.health().fatalReason();
        if (fatal != null)
        {
            err.println("kvserver: fatal: " + fatal);
            err.flush();
        }
        out.println("kvserver: shutting down");
        out.flush();
        final long t0 = System.nanoTime();
        if (cluster != null)
        {
            // serve nobody before leaving: the coordinator may promote a successor once the member znode is gone
            server.withdraw();
        }
        closeQuietly(cluster);
        server.close();
        if (endpoint != null)
        {
            endpoint.close();
        }
        out.println("kvserver: stopped in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
        out.flush();
        return fatal == null ? 0 : KvServerCommand.EXIT_FATAL;
    }

    private static void closeQuietly(final ZooKeeperNode cluster)
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    /**
     * What readiness requires besides start-up: listeners that can accept, and for a node of a ZooKeeper
     * cluster ({@code role} not null) an applied map that lists it and currency (it refuses HELLOs otherwise:
     * a node cut off from ZooKeeper, or whose session expired, is not ready).
     */
    static BooleanSupplier readyWhen(final KvServer server, final NodeRole role)
    {
        return () -> server.health().isHealthy() && (role == null || (role.inMap() && server.serving()));
    }
}
