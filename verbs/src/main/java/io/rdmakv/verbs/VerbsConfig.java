package io.rdmakv.verbs;

/**
 * How to open a device.
 *
 * @param device      device name ({@code rxe0}, {@code mlx5_0}); null picks the first usable one
 * @param port        device port number (ibverbs, usually 1)
 * @param tcpBindHost address the {@code tcp} provider's software NIC listens on
 */
public record VerbsConfig(String device, int port, String tcpBindHost)
{
    public static final VerbsConfig DEFAULT = new VerbsConfig(null, 1, "127.0.0.1");

    public VerbsConfig withDevice(final String device)
    {
        return new VerbsConfig(device, port, tcpBindHost);
    }

    public VerbsConfig withTcpBindHost(final String tcpBindHost)
    {
        return new VerbsConfig(device, port, tcpBindHost);
    }
}
