package io.rdmakv.server.cluster.zk;

import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.data.ACL;

import java.util.List;

/** Curator's ACL for every znode the node creates, namespace parents included: the credential's, nothing else. */
final class ZkAcls implements ACLProvider
{
    private final List<ACL> acl;

    ZkAcls(final ZkCredentials credentials)
    {
        this.acl = credentials.acl();
    }

    @Override
    public List<ACL> getDefaultAcl()
    {
        return acl;
    }

    @Override
    public List<ACL> getAclForPath(final String path)
    {
        return acl;
    }
}
