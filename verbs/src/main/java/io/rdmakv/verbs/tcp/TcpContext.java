package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.VerbsConfig;

final class TcpContext implements Context
{
    TcpContext(final VerbsConfig config)
    {
        throw new UnsupportedOperationException("tcp provider: being written");
    }

    public String providerName() { return "tcp"; }
    public String deviceName() { return "tcp0"; }
    public DeviceAttributes attributes() { return null; }
    public ProtectionDomain allocateProtectionDomain() { return null; }
    public CompletionQueue createCompletionQueue(final int capacity) { return null; }
    public void close() { }
}
