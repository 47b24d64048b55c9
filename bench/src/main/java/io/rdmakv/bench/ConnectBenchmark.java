package io.rdmakv.bench;

import io.rdmakv.client.ClientTls;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import org.HdrHistogram.Histogram;

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

    public static void main(final String[] args)
    {
        String hosts = null;
        String transport = "tcp";
        String token = "";
        int connects = 200;
        int warmup = 20;
        Path ca = null;
        Path cert = null;
        Path key = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--hosts" -> hosts = args[++i];
                case "--transport" -> transport = args[++i];
                case "--token" -> token = args[++i];
                case "--connects" -> connects = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--tls-ca" -> ca = Path.of(args[++i]);
                case "--tls-cert" -> cert = Path.of(args[++i]);
                case "--tls-key" -> key = Path.of(args[++i]);
                default ->
                {
                    System.err.println("usage: ConnectBenchmark --hosts H:P [--transport T] [--token T] " +
                        "[--connects N] [--warmup N] [--tls-ca FILE [--tls-cert FILE --tls-key FILE]]");
                    System.exit(2);
                }
            }
        }
        if (hosts == null)
        {
            System.err.println("ConnectBenchmark: --hosts is required");
            System.exit(2);
        }
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
