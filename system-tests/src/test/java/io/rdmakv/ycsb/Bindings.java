package io.rdmakv.ycsb;

import io.rdmakv.systemtests.LocalCluster;
import site.ycsb.DBException;

import java.util.Properties;

/**
 * Binding instances for the node of a {@link LocalCluster}, configured as YCSB would: the cluster's
 * transport, device and per-operation timeout, statistics off.
 */
final class Bindings
{
    private Bindings()
    {
    }

    static Properties properties(final LocalCluster cluster)
    {
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.HOSTS_PROPERTY, cluster.hosts());
        p.setProperty(RdmaKvClient.TRANSPORT_PROPERTY, LocalCluster.TRANSPORT);
        p.setProperty(RdmaKvClient.CM_PROPERTY, LocalCluster.CM.label());
        if (LocalCluster.CLIENT_DEVICE != null)
        {
            p.setProperty(RdmaKvClient.DEVICE_PROPERTY, LocalCluster.CLIENT_DEVICE);
        }
        p.setProperty(RdmaKvClient.TIMEOUT_PROPERTY, Long.toString(LocalCluster.OP_TIMEOUT.toMillis()));
        p.setProperty(RdmaKvClient.PRINT_STATS_PROPERTY, "false");
        return p;
    }

    /** A binding instance for the cluster's node, initialised as YCSB would. */
    static RdmaKvClient db(final LocalCluster cluster) throws DBException
    {
        return db(properties(cluster));
    }

    static RdmaKvClient db(final Properties properties) throws DBException
    {
        final RdmaKvClient db = new RdmaKvClient();
        db.setProperties(properties);
        db.init();
        return db;
    }
}
