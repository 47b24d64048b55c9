package io.rdmakv.systemtests.store;

import io.rdmakv.client.KvClient;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link KvClient#close()} while other threads open sessions (each new thread opens its own on its first operation):
 * a session opened while close runs is closed too, by the thread that opened it, and close waits for it, so the
 * protection domain is freed (on the tcp provider {@code ibv_dealloc_pd} refuses, EBUSY, while a queue pair or memory
 * region of it is open). Operations running when the client closes fail; that is all they may do.
 */
class CloseWhileOpeningTest
{
    private static final int CLIENTS = 8;
    private static final int OPENERS = 6;
    private static final int THREADS_PER_OPENER = 8;

    @Test
    void sessionsOpenedWhileTheClientClosesAreClosedToo() throws Exception
    {
        try (LocalCluster cluster = new LocalCluster())
        {
            final byte[] key = "key".getBytes(StandardCharsets.UTF_8);
            try (KvClient first = cluster.client())
            {
                first.put(key, "value".getBytes(StandardCharsets.UTF_8));
            }
            for (int c = 1; c <= CLIENTS; c++)
            {
                final KvClient client = cluster.client();
                final CountDownLatch go = new CountDownLatch(1);
                final List<Thread> openers = new ArrayList<>();
                for (int o = 0; o < OPENERS; o++)
                {
                    openers.add(Thread.ofPlatform().name("opener-" + o).start(() ->
                    {
                        try
                        {
                            go.await();
                            for (int t = 0; t < THREADS_PER_OPENER; t++)
                            {
                                // a new thread: its first operation opens a session of its own
                                final Thread user = Thread.ofPlatform().start(() ->
                                {
                                    try
                                    {
                                        client.get(key);
                                    }
                                    catch (final RuntimeException e)
                                    {
                                        // the client closed under it: failing is all it may do
                                    }
                                });
                                user.join();
                            }
                        }
                        catch (final InterruptedException e)
                        {
                            Thread.currentThread().interrupt();
                        }
                    }));
                }
                go.countDown();
                TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(500, 20_000));
                assertDoesNotThrow(client::close, "client " + c + " closed while its threads opened sessions");
                for (final Thread opener : openers)
                {
                    opener.join(TimeUnit.SECONDS.toMillis(30));
                    assertTrue(!opener.isAlive(), "the threads of client " + c + " ended");
                }
            }
        }
    }
}
