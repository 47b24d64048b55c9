package io.rdmakv.systemtests.hardening.repair;

import io.rdmakv.client.CorruptedBlockException;
import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.kvctl.KvCtl;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A node holding neighbours and a few victim keys, damaged as a peer would (over RDMA, {@link RegionView}):
 * a slot swung outside the data area, a flipped value byte. Checks shared by the repair tests: a GET of a
 * damaged key fails as damaged, and every neighbour still reads fine.
 */
abstract class RepairFixture
{
    static final int NEIGHBOURS = 100;

    KvServer server;
    KvClient writer;
    RegionView view;

    @BeforeEach
    void start()
    {
        // the damage stands for a stray WRITE of a buggy client: possible only on a node without memory windows
        // (with them, WriteWindowsTest shows such a WRITE refused); a bad DIMM does the same on any node
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withMemoryWindows(MemoryWindowMode.OFF));
        writer = LocalCluster.client(server);
        for (int i = 0; i < NEIGHBOURS; i++)
        {
            writer.put(LocalCluster.bytes("neighbour-" + i), LocalCluster.bytes("neighbour value " + i));
        }
        view = new RegionView(server);
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(view, writer, server);
    }

    /** Stores {@code key} and swings its slot to a word of the same fingerprint outside the data area. */
    RegionView.Slot pointOutside(final byte[] key, final byte[] value)
    {
        writer.put(key, value);
        final RegionView.Slot slot = view.find(key);
        view.swapSlot(slot, SlotWord.pack(SlotWord.fingerprint(slot.word()), SlotWord.lengthUnits(slot.word()),
            view.geometry().dataLength() / SlotWord.UNIT));
        return slot;
    }

    /** Stores {@code key} and flips a byte of its value: the block fails its checksum. */
    RegionView.Slot flipValueByte(final byte[] key, final byte[] value)
    {
        writer.put(key, value);
        final RegionView.Slot slot = view.find(key);
        view.flip(view.valueOffset(slot) + 3);
        return slot;
    }

    static void getFailsAsDamaged(final KvClient client, final byte[] key)
    {
        assertThrows(CorruptedBlockException.class, () -> client.get(key));
    }

    void neighboursReadFine(final KvClient client)
    {
        for (int i = 0; i < NEIGHBOURS; i++)
        {
            assertArrayEquals(LocalCluster.bytes("neighbour value " + i), client.get(LocalCluster.bytes("neighbour-" + i)));
        }
    }

    /** What one in-process kvctl run printed and returned. */
    record Run(int code, String out, String err)
    {
    }

    Run kvctl(final String... args)
    {
        final String[] all = new String[args.length + 4];
        all[0] = "--hosts";
        all[1] = LocalCluster.address(server);
        all[2] = "--transport";
        all[3] = LocalCluster.TRANSPORT;
        System.arraycopy(args, 0, all, 4, args.length);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), Map.of(), all);
        final Run run = new Run(code, out.toString(), err.toString());
        assertEquals(KvCtl.OK, run.code(), run.toString());
        return run;
    }
}
