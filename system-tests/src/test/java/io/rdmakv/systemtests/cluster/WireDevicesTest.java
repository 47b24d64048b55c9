package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.kvctl.KvCtl;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.ibverbs.IbvContext;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Across the wire only ({@code scripts/softroce-wire.sh}: ibverbs, node and client devices named): a node and a
 * client open the devices they are told to, each sending from the GID of its own address (the IPv4-mapped RoCE v2
 * entry), a PUT and a GET go through (a GET through kvctl {@code --device} too), and a client told a device that
 * does not exist fails to connect with a message naming it and the devices there are (kvctl: exit 3). Prints
 * each device's active MTU and chosen GID, and the path MTU their queue pairs use. Elsewhere it reports itself
 * aborted.
 */
@Tag("softroce-wire")
class WireDevicesTest
{
    @Test
    void nodeAndClientUseTheirOwnDevicesAndAddresses() throws Exception
    {
        assumeTrue(Providers.IBVERBS.equals(LocalCluster.TRANSPORT) && LocalCluster.CLIENT_DEVICE != null &&
            LocalCluster.nodeDevice(0) != null, "only across the wire: ibverbs with node and client devices named " +
            "(scripts/softroce-wire.sh)");
        final KvServer node = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY));
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(node))))
        {
            assertEquals(LocalCluster.nodeDevice(0), node.deviceName());
            client.put(LocalCluster.bytes("wire"), LocalCluster.bytes("crossed"));
            assertArrayEquals(LocalCluster.bytes("crossed"), client.get(LocalCluster.bytes("wire")));
            final KvConnectionException unknown = assertThrows(KvConnectionException.class, () -> KvClient.connect(
                LocalCluster.clientConfig(LocalCluster.address(node)).withDevice("nosuch9")).close());
            assertTrue(unknown.getMessage().contains("no RDMA device named nosuch9") &&
                unknown.getMessage().contains(LocalCluster.CLIENT_DEVICE), unknown.getMessage());
            assertEquals(0, kvctl(node, LocalCluster.CLIENT_DEVICE, "get", "wire").code(), "kvctl on its device");
            final KvctlRun wrong = kvctl(node, "nosuch9", "get", "wire");
            assertEquals(KvCtl.UNREACHABLE, wrong.code(), wrong.err());
            assertTrue(wrong.err().contains("no RDMA device named nosuch9"), wrong.err());
        }
        finally
        {
            node.close();
        }
        final int nodeMtu = describe("node 0", LocalCluster.nodeDevice(0), LocalCluster.nodeHost(0));
        final int clientMtu = describe("client", LocalCluster.CLIENT_DEVICE, null);
        System.out.printf("wire devices: path MTU %d (the smaller active MTU of the two ends)%n",
            IbvConstants.mtuBytes(Math.min(nodeMtu, clientMtu)));
    }

    private record KvctlRun(int code, String out, String err)
    {
    }

    private static KvctlRun kvctl(final KvServer node, final String device, final String... command)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final List<String> args = new ArrayList<>(List.of("--hosts", LocalCluster.address(node), "--transport",
            LocalCluster.TRANSPORT, "--device", device, "--timeout-ms", "" + LocalCluster.OP_TIMEOUT.toMillis()));
        args.addAll(List.of(command));
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), Map.of(), args.toArray(String[]::new));
        return new KvctlRun(code, out.toString(), err.toString());
    }

    /**
     * Prints {@code device}'s active MTU and the GID its queue pairs send from (the IPv4-mapped {@code host}
     * when given); returns the MTU.
     */
    private static int describe(final String who, final String device, final String host) throws Exception
    {
        try (IbvContext context = (IbvContext)Providers.open(Providers.IBVERBS, VerbsConfig.DEFAULT.withDevice(device)))
        {
            final IbvContext.GidEntry chosen = context.queryGid(context.gidIndex());
            if (host != null)
            {
                final byte[] mapped = new byte[16];
                mapped[10] = (byte)0xff;
                mapped[11] = (byte)0xff;
                System.arraycopy(InetAddress.getByName(host).getAddress(), 0, mapped, 12, 4);
                assertTrue(Arrays.equals(mapped, chosen.gid()), who + " sends from " + chosen + ", not " + host);
            }
            System.out.printf("wire devices: %s on %s: active MTU %d, sends from %s%n", who, device,
                IbvConstants.mtuBytes(context.activeMtu()), chosen);
            return context.activeMtu();
        }
    }
}
