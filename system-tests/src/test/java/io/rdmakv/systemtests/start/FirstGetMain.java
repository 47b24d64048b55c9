package io.rdmakv.systemtests.start;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Times {@link KvClient#connect} and the first GET after it, run in a JVM of its own: round 0 is the
 * cold start (classes loaded, nothing compiled), the later rounds connect again in the warmed JVM. Prints
 * one line per round, {@code ROUND i connect_us first_get_us classes_loaded}, then {@code DONE}.
 *
 * <p>Arguments: {@code HOST:PORT TRANSPORT ROUNDS}; the key {@code warm-start} must exist.
 */
public final class FirstGetMain
{
    public static final byte[] KEY = "warm-start".getBytes(StandardCharsets.UTF_8);

    private FirstGetMain()
    {
    }

    public static void main(final String[] args)
    {
        final KvClientConfig config = KvClientConfig.of(args[0]).withTransport(args[1])
            .withOpTimeout(Duration.ofSeconds(10));
        final int rounds = Integer.parseInt(args[2]);
        for (int round = 0; round < rounds; round++)
        {
            final long start = System.nanoTime();
            try (KvClient client = KvClient.connect(config))
            {
                final long connected = System.nanoTime();
                if (client.get(KEY) == null)
                {
                    throw new IllegalStateException("the key warm-start is missing");
                }
                final long done = System.nanoTime();
                System.out.println("ROUND " + round + " " + (connected - start) / 1000 + " " + (done - connected) / 1000 +
                    " " + ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
            }
        }
        System.out.println("DONE");
    }
}
