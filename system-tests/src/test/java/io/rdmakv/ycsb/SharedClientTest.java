package io.rdmakv.ycsb;

import io.rdmakv.client.KvClient;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.client.KvException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static io.rdmakv.ycsb.RdmaKvClientTest.fields;
import static io.rdmakv.ycsb.RdmaKvClientTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One client per process, counted by reference; configuration from properties. */
class SharedClientTest
{
    private static LocalCluster cluster;

    @BeforeAll
    static void startServer()
    {
        cluster = new LocalCluster();
    }

    @AfterAll
    static void stopServer()
    {
        cluster.close();
    }

    /** The binding's report names the write path: one-sided on this node, node-assisted on one without atomics. */
    @Test
    void theReportSaysWhichWritePathIsInUse() throws DBException
    {
        final RdmaKvClient db = Bindings.db(cluster);
        try
        {
            // the path the node chose for its device: one-sided, or node-assisted on one without atomics (siw)
            final String expected = cluster.server().nodeAssistedWrites() ? KvClient.NODE_ASSISTED : KvClient.ONE_SIDED;
            assertEquals(expected, SharedClient.writePath(db.client()));
            final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            new BindingCounters().report(db.client().stats(), SharedClient.writePath(db.client()),
                new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
            assertTrue(bytes.toString(java.nio.charset.StandardCharsets.UTF_8)
                .startsWith("[RDMAKV], WritePath, " + expected + "\n"), bytes.toString());
        }
        finally
        {
            db.cleanup();
        }
        if (!"tcp".equals(LocalCluster.TRANSPORT))
        {
            return; // only the tcp provider plays a device without atomics
        }
        try (io.rdmakv.server.KvServer node = io.rdmakv.systemtests.store.NodeAssistedWritesTest.startWithoutAtomics(
            io.rdmakv.server.config.ServerConfig.local(LocalCluster.NODE_MEMORY));
            KvClient client = LocalCluster.client(node))
        {
            assertEquals(KvClient.NODE_ASSISTED, SharedClient.writePath(client));
        }
    }

    @Test
    void instancesShareOneClientThatTheLastCleanupCloses() throws DBException
    {
        final RdmaKvClient first = Bindings.db(cluster);
        final RdmaKvClient second = Bindings.db(cluster);
        assertSame(first.client(), second.client());
        assertEquals(2, SharedClient.references());

        first.cleanup();
        first.cleanup();
        assertEquals(1, SharedClient.references(), "a second cleanup of one instance releases nothing");
        assertEquals(Status.OK, second.insert("usertable", "shared1", fields("field0", "a")));
        assertEquals(Map.of("field0", "a"), read(second, "shared1", null));

        final KvClient client = second.client();
        second.cleanup();
        assertEquals(0, SharedClient.references());
        assertThrows(KvException.class, () -> client.get("shared1".getBytes()), "closed with the last instance");

        final RdmaKvClient third = Bindings.db(cluster);
        try
        {
            assertEquals(Map.of("field0", "a"), read(third, "shared1", null), "a new client after a full cleanup");
        }
        finally
        {
            third.cleanup();
        }
    }

    @Test
    void threadsInitialisingTogetherShareOneClientConnectedOnce() throws Exception
    {
        final int threads = 8;
        final java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        final java.util.List<java.util.concurrent.Future<RdmaKvClient>> inits = new java.util.ArrayList<>();
        try (java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads))
        {
            for (int t = 0; t < threads; t++)
            {
                inits.add(pool.submit(() ->
                {
                    start.await();
                    return Bindings.db(cluster);
                }));
            }
            final java.util.List<RdmaKvClient> dbs = new java.util.ArrayList<>();
            for (final java.util.concurrent.Future<RdmaKvClient> init : inits)
            {
                dbs.add(init.get(60, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertEquals(threads, SharedClient.references());
            for (final RdmaKvClient db : dbs)
            {
                assertSame(dbs.get(0).client(), db.client(), "one client for every instance");
            }
            final KvClient client = dbs.get(0).client();
            for (final RdmaKvClient db : dbs)
            {
                pool.submit(db::cleanup).get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertEquals(0, SharedClient.references());
            assertThrows(KvException.class, () -> client.get("x".getBytes()), "closed with the last instance");
        }
    }

    @Test
    void seedsMayComeFromAClusterMapFile(@TempDir final Path dir) throws IOException, DBException
    {
        final Path map = dir.resolve("cluster.json");
        Files.writeString(map, "{\"epoch\": 1, \"nodes\": [{\"id\": 0, \"host\": \"" + LocalCluster.nodeHost(0) +
            "\", \"port\": " + cluster.server().port() + "}]}");
        final Properties p = Bindings.properties(cluster);
        p.remove(RdmaKvClient.HOSTS_PROPERTY);
        p.setProperty(RdmaKvClient.CLUSTER_PROPERTY, map.toString());
        final RdmaKvClient db = Bindings.db(p);
        try
        {
            assertEquals(Status.OK, db.insert("usertable", "mapped", fields("field0", "a")));
        }
        finally
        {
            db.cleanup();
        }
    }

    @Test
    void badPropertiesFailInitWithTheirName(@TempDir final Path dir) throws IOException
    {
        assertInitFails("set rdmakv.hosts or rdmakv.cluster, not both", RdmaKvClient.CLUSTER_PROPERTY, "x.json");
        assertInitFails("rdmakv.timeout.ms must be a positive integer, not '0'", RdmaKvClient.TIMEOUT_PROPERTY, "0");
        assertInitFails("rdmakv.update.retries must be a positive integer, not 'many'",
            RdmaKvClient.UPDATE_RETRIES_PROPERTY, "many");
        assertInitFails("rdmakv.stats must be true or false", RdmaKvClient.PRINT_STATS_PROPERTY, "yes");
        assertInitFails("bad node address", RdmaKvClient.HOSTS_PROPERTY, "127.0.0.1:port");
        final Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"epoch\": 1}");
        final Properties p = Bindings.properties(cluster);
        p.remove(RdmaKvClient.HOSTS_PROPERTY);
        p.setProperty(RdmaKvClient.CLUSTER_PROPERTY, bad.toString());
        final DBException e = assertThrows(DBException.class, () -> Bindings.db(p));
        assertTrue(e.getMessage().startsWith("rdmakv.cluster: " + bad + ": "), e.getMessage());
        assertEquals(0, SharedClient.references());
    }

    @Test
    void noServerFailsInitAndLeavesNoReference() throws IOException
    {
        final int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0))
        {
            closedPort = s.getLocalPort();
        }
        final Properties p = Bindings.properties(cluster);
        p.setProperty(RdmaKvClient.HOSTS_PROPERTY, "127.0.0.1:" + closedPort);
        p.setProperty(RdmaKvClient.CONNECT_TIMEOUT_PROPERTY, "2000");
        final DBException e = assertThrows(DBException.class, () -> Bindings.db(p));
        assertTrue(e.getMessage().startsWith("rdmakv: cannot connect to "), e.getMessage());
        assertEquals(0, SharedClient.references());
    }

    private static void assertInitFails(final String message, final String property, final String value)
    {
        final Properties p = Bindings.properties(cluster);
        p.setProperty(property, value);
        final DBException e = assertThrows(DBException.class, () -> Bindings.db(p));
        assertTrue(e.getMessage().contains(message), e.getMessage());
        assertEquals(0, SharedClient.references());
    }
}
