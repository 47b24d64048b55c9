package io.rdmakv.server.config;

import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Providers;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** Which RDMA transport and device the node opens. */
public final class TransportOptions
{
    @Option(names = "--transport", paramLabel = "auto|tcp|ibverbs", defaultValue = ServerConfig.DEFAULT_TRANSPORT,
        description = "RDMA transport: ibverbs (a real RDMA device), tcp (software, any machine) or auto " +
            "(ibverbs when a device with an active port exists). Default: ${DEFAULT-VALUE}.")
    private String transport;

    @Option(names = "--device", paramLabel = "NAME",
        description = "RDMA device to open (ibverbs), e.g. mlx5_0 or rxe0. Default: the first device whose port " +
            "is ACTIVE.")
    private String device;

    @Option(names = "--device-port", paramLabel = "N", defaultValue = "" + ServerConfig.DEFAULT_DEVICE_PORT,
        description = "Port number of the RDMA device (ibverbs). Default: ${DEFAULT-VALUE}.")
    private int devicePort;

    @Option(names = "--write-path", paramLabel = "auto|one-sided|node-assisted", defaultValue = "auto",
        description = "How clients change the index. one-sided: their own RDMA compare-and-swap; node-assisted: " +
            "each CAS is a control message the node runs with its own atomics (a device without remote atomics; " +
            "blocks are still written and read one-sided); auto: one-sided unless the device has no remote atomics. " +
            "Default: ${DEFAULT-VALUE}.")
    private String writePath;

    @Option(names = "--cm", paramLabel = "auto|rdmacm|exchange", defaultValue = "auto",
        description = "How the sessions' queue pairs are connected after the bootstrap: exchange (their numbers and " +
            "GIDs travel in HELLO/HELLO_OK; InfiniBand, RoCE), rdmacm (the RDMA connection manager, librdmacm; " +
            "needed on iWARP) or auto (rdmacm on an iWARP device, else exchange). The tcp transport always " +
            "exchanges. Default: ${DEFAULT-VALUE}.")
    private String cm;

    @Option(names = "--cm-address", paramLabel = "IP",
        description = "With rdma_cm: the address its listener binds and clients connect to (on an interface with " +
            "an RDMA device). Default: --listen's host, or the device's own address when that is a loopback or " +
            "wildcard address.")
    private String cmAddress;

    /** Sets transport, device, write path and connection setup; refuses an unknown transport, path or setup name. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (!Providers.NAMES.contains(transport))
        {
            throw Invalid.value(spec, "--transport", transport, "one of " + String.join(", ", Providers.NAMES));
        }
        if (devicePort < 1 || devicePort > 255)
        {
            throw Invalid.value(spec, "--device-port", devicePort, "a port number in 1..255");
        }
        final WritePath path = WritePath.parse(writePath);
        if (path == null)
        {
            throw Invalid.value(spec, "--write-path", writePath, "auto, one-sided or node-assisted");
        }
        final ConnectionSetup setup;
        try
        {
            setup = ConnectionSetup.parse(cm);
        }
        catch (final IllegalArgumentException e)
        {
            throw Invalid.value(spec, "--cm", cm, "one of " + String.join(", ", ConnectionSetup.NAMES));
        }
        if (setup == ConnectionSetup.RDMACM && Providers.TCP.equals(transport))
        {
            throw Invalid.value(spec, "--cm", cm, "auto or exchange with --transport tcp (the tcp transport " +
                "connects its queue pairs itself; rdma_cm needs --transport ibverbs)");
        }
        builder.writePath(path).transport(transport).device(device == null || device.isBlank() ? null : device, devicePort)
            .connectionSetup(setup, cmAddress);
    }
}
