package io.rdmakv.client.internal.session;

import io.rdmakv.common.cluster.ClusterMap;

/**
 * A node answered a new session with a newer cluster map than the router's: the cluster changed (a
 * failover, a replica added, a group sealed or unsealed). The client switches to {@link #map()} and
 * retries; {@link #session()} (opened under the new map) can be adopted by the new router.
 */
public final class StaleMapException extends RuntimeException
{
    private final transient ClusterMap map;
    private final transient Session session;

    public StaleMapException(final ClusterMap map, final Session session)
    {
        super("cluster map epoch " + map.epoch() + " is newer than the client's", null, false, false);
        this.map = map;
        this.session = session;
    }

    public ClusterMap map()
    {
        return map;
    }

    public Session session()
    {
        return session;
    }
}
