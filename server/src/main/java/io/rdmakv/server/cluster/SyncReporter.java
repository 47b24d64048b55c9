package io.rdmakv.server.cluster;

/**
 * How a copying node tells the coordinator how far it is ({@code ZkMembership.reportSync}): a seam, so that
 * {@link NodeRole} is tested without ZooKeeper.
 */
@FunctionalInterface
public interface SyncReporter
{
    /**
     * Reports for replica group {@code group} in the map of {@code epoch}: {@code finalPass} false after the
     * bulk passes (the coordinator then seals the group), true after the last pass in the sealed epoch (the
     * coordinator then makes this node a member).
     *
     * @throws Exception when the report could not be written (retried while the map stays the same)
     */
    void report(int group, long epoch, boolean finalPass) throws Exception;
}
