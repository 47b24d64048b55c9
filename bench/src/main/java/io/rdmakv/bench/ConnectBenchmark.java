package io.rdmakv.bench;

import io.rdmakv.client.ClientTls;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Times {@link KvClient#connect} and {@code close} against a running node, as often as asked: opening the
 * transport, the bootstrap connection (TCP, with {@code --tls-ca} the TLS 1.3 handshake), HELLO/HELLO_OK and
 * the seed session's queue pair, then its departure. Prints {@code key=value} lines: connects, p50/p99/mean
 * in microseconds. Usage: {@code ConnectBenchmark --hosts H:P [--transport T] [--token T] [--connects N]
 * [--warmup N] [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]}.
 */
public final class ConnectBenchmark
{
    private ConnectBenchmark()
    {
    }

    @Command(name = "ConnectBenchmark", sortOptions = false, showDefaultValues = true,
        description = "Times KvClient.connect + close against a running node; prints key=value lines.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;


        @Mixin
        final ClusterOptions cluster = ClusterOptions.hostsRequired("tcp");

        @Option(names = "--token", paramLabel = "T", description = "Auth token (default: none).",
            showDefaultValue = CommandLine.Help.Visibility.NEVER)
        String token = "";

        @Option(names = "--connects", paramLabel = "N", description = "Connects timed.")
        int connects = 200;

        @Option(names = "--warmup", paramLabel = "N", description = "Connects before the timed ones.")
        int warmup = 20;

        @Option(names = "--tls-ca", paramLabel = "FILE", description = "CA certificates (PEM): connect with TLS.")
        Path ca;

        @Option(names = "--tls-cert", paramLabel = "FILE", description = "Client certificate chain (PEM), with --tls-key.")
        Path cert;

        @Option(names = "--tls-key", paramLabel = "FILE", description = "Client key (PKCS#8 PEM), with --tls-cert.")
        Path key;
    }

    public static void main(final String[] args)
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final String hosts = options.cluster.hosts;
        final String transport = options.cluster.transport;
        final String token = options.token;
        final int connects = options.connects;
        final int warmup = options.warmup;
        final Path ca = options.ca;
        final Path cert = options.cert;
        final Path key = options.key;
        final ClientTls tls = ca == null ? null : cert == null ? ClientTls.trusting(ca) :
            ClientTls.withCertificate(ca, cert, key);
        final KvClientConfig config = KvClientConfig.of(hosts).withTransport(transport).withAuthToken(token)
            .withAsyncThreads(1).withTls(tls);
        final Histogram micros = new Histogram(60_000_000L, 3);
        for (int i = 0; i < warmup + connects; i++)
        {
            final long t0 = System.nanoTime();
            KvClient.connect(config).close();
            if (i >= warmup)
            {
                micros.recordValue((System.nanoTime() - t0) / 1_000);
            }
        }
        System.out.println("tls=" + (tls != null) + (cert != null ? "+client-cert" : ""));
        System.out.println("connects=" + micros.getTotalCount());
        System.out.println("connect_p50_us=" + micros.getValueAtPercentile(50));
        System.out.println("connect_p99_us=" + micros.getValueAtPercentile(99));
        System.out.println("connect_mean_us=" + String.format(Locale.ROOT, "%.0f", micros.getMean()));
    }
}
