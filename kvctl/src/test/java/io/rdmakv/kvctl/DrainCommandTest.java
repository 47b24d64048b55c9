package io.rdmakv.kvctl;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvctl drain NODE [--cancel]}'s argument, flags and the drain it sends, checked before anything is sent (a
 * bad NODE is exit 2 even with no node to reach). What a node does with it is {@code DrainCoordinationTest}'s
 * (server).
 */
class DrainCommandTest
{
    record Run(int code, String out, String err)
    {
    }

    /** kvctl against a port nobody listens on: a request that got as far as connecting is exit 3. */
    private static Run kvctl(final String... args) throws IOException
    {
        final int nobody;
        try (ServerSocket s = new ServerSocket(0))
        {
            nobody = s.getLocalPort();
        }
        final List<String> all = new ArrayList<>(List.of("--hosts", "127.0.0.1:" + nobody, "--transport", "tcp",
            "--timeout-ms", "2000"));
        Collections.addAll(all, args);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), Map.of(), all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void buildsTheDrainAndItsCancel()
    {
        assertEquals("{\"drain\":3}", DrainCommand.requestJson("3", false));
        assertEquals("{\"drain\":12,\"cancel\":true}", DrainCommand.requestJson(" 12 ", true));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DrainCommand.requestJson("-1", false))
            .getMessage().contains("node '-1' is not a non-negative integer"));
        assertThrows(IllegalArgumentException.class, () -> DrainCommand.requestJson("n3", true));
    }

    @Test
    void aBadNodeIsUsageBeforeAnythingIsSent() throws IOException
    {
        final Run word = kvctl("drain", "three");
        assertEquals(KvCtl.USAGE, word.code(), word.err());
        assertEquals("kvctl: drain: node 'three' is not a non-negative integer (a node id, as kvctl cluster lists " +
            "it)\n", word.err());
        assertEquals(KvCtl.USAGE, kvctl("drain").code(), "NODE is required");
        assertEquals(KvCtl.USAGE, kvctl("drain", "1", "2").code(), "one NODE");
        assertEquals(KvCtl.USAGE, kvctl("drain", "1", "--cancle").code(), "an unknown flag");
        final Run json = kvctl("--json", "drain", "-4", "--cancel");
        assertEquals(KvCtl.USAGE, json.code(), json.out() + json.err());
        assertTrue(json.out().contains("\"exitCode\" : 2"), json.out());
        // good arguments do try to reach a node: the refusals above came first
        assertEquals(KvCtl.UNREACHABLE, kvctl("drain", "3").code());
        final Run cancel = kvctl("drain", "3", "--cancel", "--dry-run");
        assertEquals(KvCtl.UNREACHABLE, cancel.code(), cancel.err());
    }
}
