package io.rdmakv.server.config;

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

    /** Sets transport and device; refuses an unknown transport name. */
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
        builder.transport(transport).device(device == null || device.isBlank() ? null : device, devicePort);
    }
}
