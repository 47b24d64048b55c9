package io.rdmakv.verbs;

import java.time.Duration;

/**
 * How to open a device.
 *
 * @param device             device name ({@code rxe0}, {@code mlx5_0}); null picks the first usable one
 * @param port               device port number (ibverbs, usually 1)
 * @param tcpBindHost        address the {@code tcp} provider's software NIC listens on
 * @param handshakeTimeoutMs the {@code tcp} provider's deadline for one whole connection handshake, on both
 *                           sides: a peer that connects to the device's port has this long to send its
 *                           hello (however it trickles it), and a queue pair's RTR has this long to connect
 *                           to its peer's device and hear the answer
 */
public record VerbsConfig(String device, int port, String tcpBindHost, int handshakeTimeoutMs)
{
    /** A few seconds: far above a handshake's loopback or LAN round trip, far below a client's connect timeout. */
    public static final int DEFAULT_HANDSHAKE_TIMEOUT_MS = 3_000;
    public static final VerbsConfig DEFAULT = new VerbsConfig(null, 1, "127.0.0.1");

    public VerbsConfig
    {
        if (handshakeTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("handshake timeout must be positive, not " + handshakeTimeoutMs + " ms");
        }
    }

    /** A configuration with the default handshake deadline ({@value #DEFAULT_HANDSHAKE_TIMEOUT_MS} ms). */
    public VerbsConfig(final String device, final int port, final String tcpBindHost)
    {
        this(device, port, tcpBindHost, DEFAULT_HANDSHAKE_TIMEOUT_MS);
    }

    public VerbsConfig withDevice(final String device)
    {
        return new VerbsConfig(device, port, tcpBindHost, handshakeTimeoutMs);
    }

    public VerbsConfig withTcpBindHost(final String tcpBindHost)
    {
        return new VerbsConfig(device, port, tcpBindHost, handshakeTimeoutMs);
    }

    public VerbsConfig withHandshakeTimeout(final Duration timeout)
    {
        return new VerbsConfig(device, port, tcpBindHost, Math.toIntExact(timeout.toMillis()));
    }
}
