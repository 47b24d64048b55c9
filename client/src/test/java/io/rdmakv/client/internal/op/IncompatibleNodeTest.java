package io.rdmakv.client.internal.op;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.RegionHeaderDescriptor;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node whose region layout version this client does not read is refused at connect, naming both versions. */
class IncompatibleNodeTest
{
    /** Offset of the region header inside HELLO_OK (see its diagram). */
    private static final int REGION_HEADER_IN_HELLO_OK = 88;

    @Test
    void aNodeOfAnotherLayoutVersionIsRefusedWithBothVersionsNamed() throws Exception
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final byte[] reply = helloOkOfLayoutVersion(RegionHeaderDescriptor.LAYOUT_VERSION + 1, listener.getLocalPort());
            final Thread node = Thread.ofPlatform().daemon().start(() -> answerOneHello(listener, reply));
            final KvClientConfig config = KvClientConfig.of("127.0.0.1:" + listener.getLocalPort())
                .withTransport("tcp").withConnectTimeout(Duration.ofSeconds(5));
            final KvConnectionException e = assertThrows(KvConnectionException.class, () -> KvClient.connect(config));
            assertTrue(e.getMessage().contains("is incompatible with this client") &&
                e.getMessage().contains("layout version " + (RegionHeaderDescriptor.LAYOUT_VERSION + 1)) &&
                e.getMessage().contains("reads layout version " + RegionHeaderDescriptor.LAYOUT_VERSION), e.getMessage());
            node.join(5_000);
        }
    }

    @Test
    void theSameReplyOfThisLayoutVersionDecodes()
    {
        final byte[] reply = helloOkOfLayoutVersion(RegionHeaderDescriptor.LAYOUT_VERSION, 7400);
        assertEquals(HelloOkMessage.class, ControlCodec.fromBytes(reply).getClass());
    }

    private static byte[] helloOkOfLayoutVersion(final int layoutVersion, final int port)
    {
        final RegionGeometry geometry = RegionGeometry.forMemory(32L << 20);
        final HelloOkMessage ok = new HelloOkMessage(1, 0, QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 1),
            new RemoteRegion(1L << 40, geometry.headerAndIndexLength(), 1),
            new RemoteRegion((1L << 40) + geometry.dataOffset(), geometry.dataLength(), 2), geometry,
            ClusterMap.of(1, List.of(new ClusterNode(0, "127.0.0.1", port))), 7L, 100_000_000L, 500);
        final byte[] bytes = ControlCodec.toBytes(ok);
        MemorySegment.ofArray(bytes).set(LittleEndian.U32,
            REGION_HEADER_IN_HELLO_OK + RegionHeaderDescriptor.LAYOUT_VERSION_OFFSET, layoutVersion);
        return bytes;
    }

    /** Reads one framed HELLO and answers {@code reply}. */
    private static void answerOneHello(final ServerSocket listener, final byte[] reply)
    {
        try (Socket peer = listener.accept())
        {
            final DataInputStream in = new DataInputStream(peer.getInputStream());
            final byte[] header = new byte[MessageHeaderDescriptor.HEADER_LENGTH];
            in.readFully(header);
            final int length = (int)MessageHeaderDescriptor.length(MemorySegment.ofArray(header), 0);
            in.readFully(new byte[length - header.length]);
            peer.getOutputStream().write(reply);
            peer.getOutputStream().flush();
            in.read();
        }
        catch (final IOException e)
        {
            // the client hung up: nothing to answer
        }
    }
}
