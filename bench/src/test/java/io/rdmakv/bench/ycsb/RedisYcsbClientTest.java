package io.rdmakv.bench.ycsb;

import io.rdmakv.ycsb.RunStatsFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The Redis side of bench/ycsb.sh against a real redis-server (skipped, saying why, where none is installed). */
class RedisYcsbClientTest
{
    private final List<RedisYcsbClient> opened = new ArrayList<>();
    private Process server;
    private int port;

    @BeforeEach
    void startRedis(@TempDir final Path dir) throws Exception
    {
        final String redis = onPath("redis-server");
        assumeTrue(redis != null, "redis-server is not installed (scripts/setup.sh installs it): the Redis " +
            "YCSB DB is not tested");
        port = freePort();
        server = new ProcessBuilder(redis, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", dir.toString())
            .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(dir.resolve("redis.log")).contains("Ready to accept connections"))
        {
            assertTrue(server.isAlive(), "redis-server exited: " + Files.readString(dir.resolve("redis.log")));
            assertTrue(System.nanoTime() < deadline, "redis-server did not start in 10 s");
            Thread.sleep(20);
        }
    }

    @AfterEach
    void stop() throws Exception
    {
        for (final RedisYcsbClient db : opened)
        {
            db.cleanup();
        }
        System.clearProperty(RunStatsFile.PROPERTY);
        System.clearProperty(RunStatsFile.WARMUP_PROPERTY);
        if (server != null)
        {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRecordIsAHashThatReadsBackAsWritten() throws DBException
    {
        final RedisYcsbClient db = open();
        assertEquals(Status.OK, db.insert("usertable", "user1", values("field0", "a", "field1", "b")));
        final Map<String, ByteIterator> all = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user1", null, all));
        assertEquals(Map.of("field0", "a", "field1", "b"), strings(all));
        final Map<String, ByteIterator> one = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user1", Set.of("field1", "field9"), one));
        assertEquals(Map.of("field1", "b"), strings(one));
    }

    @Test
    void anUpdateChangesOnlyTheFieldsItNames() throws DBException
    {
        final RedisYcsbClient db = open();
        db.insert("usertable", "user2", values("field0", "a", "field1", "b"));
        assertEquals(Status.OK, db.update("usertable", "user2", values("field1", "B", "field2", "c")));
        final Map<String, ByteIterator> all = new HashMap<>();
        db.read("usertable", "user2", null, all);
        assertEquals(Map.of("field0", "a", "field1", "B", "field2", "c"), strings(all));
    }

    @Test
    void aMissingKeyIsNotFoundAndADeleteRemoves() throws DBException
    {
        final RedisYcsbClient db = open();
        assertEquals(Status.NOT_FOUND, db.read("usertable", "nobody", null, new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "nobody", Set.of("field0"), new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.delete("usertable", "nobody"));
        db.insert("usertable", "user3", values("field0", "a"));
        assertEquals(Status.OK, db.delete("usertable", "user3"));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user3", null, new HashMap<>()));
        assertEquals(Status.NOT_IMPLEMENTED, db.scan("usertable", "user3", 10, null, new Vector<>()));
    }

    @Test
    void theLastCleanupWritesTheRunsCommandsAndCpuTime(@TempDir final Path dir) throws Exception
    {
        final Path stats = dir.resolve("run.stats");
        System.setProperty(RunStatsFile.PROPERTY, stats.toString());
        final RedisYcsbClient first = open();
        final RedisYcsbClient second = open();
        for (int i = 0; i < 10; i++)
        {
            first.insert("usertable", "k" + i, values("field0", "v"));
            second.read("usertable", "k" + i, null, new HashMap<>());
        }
        second.update("usertable", "k0", values("field0", "w"));
        first.cleanup();
        assertTrue(Files.notExists(stats), "written by the last cleanup, not the first");
        second.cleanup();
        opened.clear();
        final String text = Files.readString(stats);
        assertTrue(text.contains("[CLIENT], Ops(INSERT), 10\n"), text);
        assertTrue(text.contains("[CLIENT], RoundTrips(INSERT), 10\n"), text);
        assertTrue(text.contains("[CLIENT], Ops(READ), 10\n"), text);
        assertTrue(text.contains("[CLIENT], RoundTrips(READ), 10\n"), text);
        assertTrue(text.contains("[CLIENT], Ops(UPDATE), 1\n"), text);
        assertTrue(text.contains("[CLIENT], Errors, 0\n"), text);
        assertTrue(text.matches("(?s).*\\[CLIENT], CpuNanos, \\d+\n.*"), text);
        assertTrue(text.matches("(?s).*\\[CLIENT], WallNanos, [1-9]\\d*\n.*"), text);
    }

    @Test
    void theStatisticsLeaveOutTheWarmUp(@TempDir final Path dir) throws Exception
    {
        final Path stats = dir.resolve("run.stats");
        System.setProperty(RunStatsFile.PROPERTY, stats.toString());
        System.setProperty(RunStatsFile.WARMUP_PROPERTY, "200");
        final RedisYcsbClient db = open();
        for (int i = 0; i < 5; i++)
        {
            db.read("usertable", "warm" + i, null, new HashMap<>());
        }
        Thread.sleep(3000);  // far past the warm-up, so its snapshot is taken even on a loaded machine
        for (int i = 0; i < 7; i++)
        {
            db.read("usertable", "steady" + i, null, new HashMap<>());
        }
        db.cleanup();
        opened.clear();
        final String text = Files.readString(stats);
        assertTrue(text.contains("[CLIENT], Operations, 7\n"), text);
        assertTrue(text.contains("[CLIENT], Ops(READ), 7\n"), text);
        final long warmup = Long.parseLong(text.replaceAll("(?s).*\\[CLIENT], WarmupNanos, (\\d+)\n.*", "$1"));
        assertTrue(warmup >= 200_000_000L, text);
    }

    @Test
    void aServerThatGoesAwayFailsOperationsWithError(@TempDir final Path dir) throws Exception
    {
        final Path stats = dir.resolve("run.stats");
        System.setProperty(RunStatsFile.PROPERTY, stats.toString());
        final RedisYcsbClient db = open();
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
        assertEquals(Status.ERROR, db.read("usertable", "user1", null, new HashMap<>()));
        assertEquals(Status.ERROR, db.insert("usertable", "user1", values("field0", "a")));
        db.cleanup();
        opened.clear();
        assertTrue(Files.readString(stats).contains("[CLIENT], Errors, 2\n"), Files.readString(stats));
    }

    @Test
    void noServerOrABadPortIsAClearInitError() throws IOException
    {
        final RedisYcsbClient nobody = client(Integer.toString(freePort()));
        final DBException refused = assertThrows(DBException.class, nobody::init);
        assertTrue(refused.getMessage().startsWith("redis: cannot connect to 127.0.0.1:"), refused.getMessage());
        final DBException bad = assertThrows(DBException.class, client("seventy")::init);
        assertEquals("redis.port must be a positive integer, not 'seventy'", bad.getMessage());
    }

    private RedisYcsbClient open() throws DBException
    {
        final RedisYcsbClient db = client(Integer.toString(port));
        db.init();
        opened.add(db);
        return db;
    }

    private static RedisYcsbClient client(final String port)
    {
        final Properties p = new Properties();
        p.setProperty(RedisYcsbClient.PORT_PROPERTY, port);
        p.setProperty(RedisYcsbClient.TIMEOUT_PROPERTY, "2000");
        final RedisYcsbClient db = new RedisYcsbClient();
        db.setProperties(p);
        return db;
    }

    private static Map<String, ByteIterator> values(final String... pairs)
    {
        final Map<String, String> m = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2)
        {
            m.put(pairs[i], pairs[i + 1]);
        }
        return StringByteIterator.getByteIteratorMap(m);
    }

    private static Map<String, String> strings(final Map<String, ByteIterator> m)
    {
        final Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    private static String onPath(final String command)
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final File f = new File(dir, command);
            if (f.canExecute())
            {
                return f.getPath();
            }
        }
        return null;
    }
}
