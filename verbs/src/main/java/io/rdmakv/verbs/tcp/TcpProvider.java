package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.Provider;
import io.rdmakv.verbs.VerbsConfig;

/** The {@code tcp} provider: a software RC transport, one TCP connection per direction of a queue pair. */
public final class TcpProvider implements Provider
{
    public static final TcpProvider INSTANCE = new TcpProvider();

    private TcpProvider()
    {
    }

    @Override
    public String name()
    {
        return "tcp";
    }

    @Override
    public String unavailableReason()
    {
        return null;
    }

    @Override
    public Context open(final VerbsConfig config)
    {
        return new TcpContext(config);
    }
}
