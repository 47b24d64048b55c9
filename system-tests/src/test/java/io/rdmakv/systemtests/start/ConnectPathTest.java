package io.rdmakv.systemtests.start;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.faults.ChildJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a client loads to connect: a fresh JVM connects and GETs with the class-load log on, and no Jackson
 * class may appear in it (the cluster map travels in binary in HELLO_OK; JSON is for config files and
 * kvctl). Prints the cold and warm connect-to-first-GET times it saw (a measurement, not asserted).
 */
class ConnectPathTest
{
    @TempDir
    Path dir;

    private KvServer server;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(server);
    }

    @Test
    void connectAndFirstGetLoadNoJackson() throws IOException, InterruptedException
    {
        server = LocalCluster.startNode();
        try (KvClient client = LocalCluster.client(server))
        {
            client.put(FirstGetMain.KEY, new byte[100]);
        }
        final Path log = dir.resolve("classes.log");
        final List<String> rounds = new ArrayList<>();
        try (ChildJvm child = ChildJvm.start(List.of("-Xlog:class+load=info:file=" + log), FirstGetMain.class, dir,
            LocalCluster.address(server), LocalCluster.TRANSPORT, "5"))
        {
            String line;
            while ((line = child.nextLine(60_000)) != null && !line.equals("DONE"))
            {
                rounds.add(line);
            }
            assertEquals("DONE", line, "the child failed: " + child.stderr());
        }
        System.out.println("connect/first GET (us) and classes loaded, round 0 cold: " + rounds);
        final List<String> loaded = Files.readAllLines(log);
        assertTrue(loaded.stream().anyMatch(l -> l.contains("io.rdmakv.client.KvClient ")),
            "the log lists the client's classes: " + loaded.size() + " lines");
        assertTrue(loaded.stream().anyMatch(l -> l.contains("io.rdmakv.common.cluster.ClusterMap ")));
        final List<String> jackson = loaded.stream().filter(l -> l.contains("com.fasterxml.jackson")).toList();
        assertEquals(0, jackson.size(), "Jackson on the client's connect path, " + jackson.size() + " classes, first: " +
            jackson.subList(0, Math.min(3, jackson.size())));
    }
}
