package io.rdmakv.systemtests.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.Readiness;
import io.rdmakv.server.metrics.ServerMetrics;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The cluster metrics of a node whose NodeRole is handed maps by hand; and of a node without ZooKeeper. */
class ClusterMetricsTest
{
    private static final int PARTITIONS = 16;

    @Test
    void epochRoleFencingAndFailoversAsTheMapsSay() throws Exception
    {
        try (KvServer server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY).toBuilder()
                .zookeeper(new ServerConfig.ZooKeeper("127.0.0.1:2181", "metrics-test", 2, 4000)).build());
            NodeRole role = new NodeRole(server, (primary, epoch) -> 0, (group, epoch, finalPass) -> { }))
        {
            final PrometheusRegistry registry = new PrometheusRegistry();
            final Readiness readiness = new Readiness();
            ServerMetrics.register(registry, server, readiness, 0, role);
            try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, registry, readiness))
            {
                Scrape s = Scrape.of(endpoint.port());
                assertEquals(0, s.value("rdmakv_cluster_epoch"));
                assertEquals(-1, s.value("rdmakv_replica_role"), "in no map");
                assertEquals(0, s.value("rdmakv_zookeeper_connected"));

                final List<ClusterNode> nodes = List.of(new ClusterNode(0, "127.0.0.1", server.port()),
                    new ClusterNode(9, "127.0.0.1", 1));
                role.onZooKeeper(true);
                role.onMap(new ClusterMap(4, PARTITIONS, nodes, 2, List.of(new ReplicaGroup(0, new int[] {9, 0},
                    null, false)), new int[PARTITIONS]));
                try (RawSession session = new RawSession(server.port()))
                {
                    role.onMap(new ClusterMap(5, PARTITIONS, nodes, 2, List.of(new ReplicaGroup(0, new int[] {0},
                        null, false)), new int[PARTITIONS]));
                }
                s = Scrape.of(endpoint.port());
                assertEquals(5, s.value("rdmakv_cluster_epoch"));
                assertEquals(3, s.value("rdmakv_replica_role"), "primary");
                assertEquals(1, s.value("rdmakv_zookeeper_connected"));
                assertEquals(1, s.value("rdmakv_failovers_total"));
                assertEquals(1, s.value("rdmakv_sessions_fenced_by_epoch_total"));
                assertEquals(0, s.value("rdmakv_copy_passes_total"));
                assertEquals(0, s.value("rdmakv_copy_slots_total"));
            }
        }
    }

    @Test
    void aNodeWithoutZooKeeperIsThePrimaryOfItsStaticMap() throws Exception
    {
        try (KvServer server = LocalCluster.startNode())
        {
            final PrometheusRegistry registry = new PrometheusRegistry();
            final Readiness readiness = new Readiness();
            ServerMetrics.register(registry, server, readiness, 0);
            try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, registry, readiness))
            {
                final Scrape s = Scrape.of(endpoint.port());
                assertEquals(server.clusterMap().epoch(), s.value("rdmakv_cluster_epoch"));
                assertEquals(3, s.value("rdmakv_replica_role"));
                assertEquals(0, s.value("rdmakv_zookeeper_connected"));
            }
        }
    }
}
