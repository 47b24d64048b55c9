package io.rdmakv.server.config;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** TLS on the bootstrap port and protected mode (see the README's security section). */
public final class SecurityOptions
{
    @Option(names = "--tls-cert", paramLabel = "FILE",
        description = "PEM certificate chain (this node's certificate first) for TLS 1.3 on the bootstrap port; " +
            "needs --tls-key. Clients then connect only with TLS. Default: none (plaintext).")
    private Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE",
        description = "PEM private key (unencrypted PKCS#8, '-----BEGIN PRIVATE KEY-----') of --tls-cert. " +
            "Default: none.")
    private Path tlsKey;

    @Option(names = "--tls-client-ca", paramLabel = "FILE",
        description = "PEM CA certificates: clients must present a certificate they signed. Such a certificate " +
            "admits a client without a token when no --auth-token is set (with one, both are needed). " +
            "Needs --tls-cert. Default: none.")
    private Path tlsClientCa;

    @Option(names = "--insecure", defaultValue = "false", fallbackValue = "true", arity = "0..1",
        paramLabel = "true|false",
        description = "Listen on a non-loopback address even with authentication off (no token, no client CA): " +
            "anyone who reaches the port can read and write every key. Default: ${DEFAULT-VALUE} (refused).")
    private boolean insecure;

    /** Sets TLS and protected mode; refuses a certificate without its key and the reverse. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (tlsCert != null && tlsKey == null)
        {
            throw Invalid.because(spec, "--tls-cert", tlsCert, "needs --tls-key, the certificate's private key");
        }
        if (tlsKey != null && tlsCert == null)
        {
            throw Invalid.because(spec, "--tls-key", tlsKey, "needs --tls-cert, the certificate it belongs to");
        }
        if (tlsClientCa != null && tlsCert == null)
        {
            throw Invalid.because(spec, "--tls-client-ca", tlsClientCa,
                "client certificates need TLS: set --tls-cert and --tls-key too");
        }
        builder.tls(tlsCert == null ? null : new ServerConfig.ServerTls(tlsCert, tlsKey, tlsClientCa))
            .insecure(insecure);
    }
}
