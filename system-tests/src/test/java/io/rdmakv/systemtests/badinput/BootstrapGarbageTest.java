package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.Bootstrap;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What arrives on the bootstrap port before a session exists: another protocol version, garbage, a cut
 * header, a first message that is not HELLO. The node answers HELLO_REFUSED with the reason (or closes
 * when there is nothing to answer), opens no session, and keeps serving a client that was connected
 * all along.
 */
class BootstrapGarbageTest
{
    private static KvServer server;
    private static KvClient bystander;
    private static final byte[] KEY = LocalCluster.bytes("bystander");
    private static final byte[] VALUE = LocalCluster.bytes("was here before the garbage");

    @BeforeAll
    static void start()
    {
        assumeTrue("tcp".equals(LocalCluster.TRANSPORT), "these HELLOs carry tcp queue-pair endpoints: a test of the " +
            "tcp transport's bootstrap, not of " + LocalCluster.TRANSPORT);
        server = LocalCluster.startNode();
        bystander = LocalCluster.client(server);
        bystander.put(KEY, VALUE);
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(bystander, server);
    }

    @AfterEach
    void nodeStillServes()
    {
        // departures are handled by the control agent shortly after a connection closes
        Await.until("only the bystander's session is open", java.time.Duration.ofSeconds(5),
            () -> server.sessionCount() == 1);
        assertArrayEquals(VALUE, bystander.get(KEY), "the connected client still reads");
        TestSupport.assertServes(server, "bootstrap garbage");
    }

    private static QueuePairEndpoint unreachableEndpoint(final String provider)
    {
        return new QueuePairEndpoint(provider, 1, 0, 0, null, 0, "127.0.0.1", 9);
    }

    private static CodedRefusalMessage refusal(final byte[] bytes, final ReasonCode expected)
    {
        final long opened = server.counters().sessionsOpened();
        try (Bootstrap b = new Bootstrap(server.port()))
        {
            final ControlMessage reply = b.write(bytes).read();
            final CodedRefusalMessage refused = CodedRefusalMessage.expect(MessageType.HELLO_REFUSED, reply);
            assertEquals(expected.code(), refused.code(), "reason " + ReasonCode.describe(refused.code()) + ": " +
                refused.text());
            assertTrue(b.closedByPeer(), "the node closes the connection after refusing");
            assertEquals(opened, server.counters().sessionsOpened(), "no session opened");
            return refused;
        }
    }

    @Test
    void helloOfAnotherProtocolVersionIsRefused()
    {
        final byte[] hello = ControlCodec.toBytes(new HelloMessage(7, new byte[0], unreachableEndpoint("tcp")));
        ByteBuffer.wrap(hello).order(ByteOrder.LITTLE_ENDIAN).putInt(HelloMessage.PROTOCOL_VERSION_OFFSET, 99);
        final CodedRefusalMessage refused = refusal(hello, ReasonCode.UNSUPPORTED_VERSION);
        assertTrue(refused.text().contains("99") && refused.text().contains("version " +
            MessageHeaderDescriptor.PROTOCOL_VERSION), refused.text());
    }

    @Test
    void garbageIsRefusedAsMalformed()
    {
        final byte[] garbage = new byte[200];
        new Random(42).nextBytes(garbage);
        garbage[0] = (byte)0xEE;
        garbage[1] = (byte)0x7F;
        final CodedRefusalMessage refused = refusal(garbage, ReasonCode.MALFORMED_MESSAGE);
        assertTrue(refused.text().contains("unknown control message type"), refused.text());
    }

    @Test
    void helloLongerThanItsLimitIsRefusedBeforeItIsRead()
    {
        final byte[] header = TestSupport.frame(MessageType.HELLO.code(), 1L << 30, 1, new byte[0]);
        final CodedRefusalMessage refused = refusal(header, ReasonCode.MALFORMED_MESSAGE);
        assertTrue(refused.text().contains("length"), refused.text());
    }

    @Test
    void helloWithACorruptEndpointIsRefused()
    {
        final byte[] hello = ControlCodec.toBytes(new HelloMessage(7, new byte[0], unreachableEndpoint("tcp")));
        hello[HelloMessage.TOKEN_OFFSET] ^= 0x55;
        final CodedRefusalMessage refused = refusal(hello, ReasonCode.MALFORMED_MESSAGE);
        assertTrue(refused.text().contains("endpoint"), refused.text());
    }

    @Test
    void firstMessageOtherThanHelloIsRefusedAsUnexpected()
    {
        final CodedRefusalMessage stats = refusal(ControlCodec.toBytes(new StatsMessage(3)),
            ReasonCode.UNEXPECTED_MESSAGE);
        assertTrue(stats.text().contains("expected HELLO, got STATS"), stats.text());
        refusal(ControlCodec.toBytes(new ByeMessage(4)), ReasonCode.UNEXPECTED_MESSAGE);
    }

    @Test
    void helloFromAnotherTransportIsRefused()
    {
        final byte[] hello = ControlCodec.toBytes(new HelloMessage(7, new byte[0], unreachableEndpoint("ibverbs")));
        final CodedRefusalMessage refused = refusal(hello, ReasonCode.UNEXPECTED_MESSAGE);
        assertTrue(refused.text().contains("tcp transport"), refused.text());
    }

    private static byte[] helloFromAnUnreachableQueuePair() throws IOException
    {
        final int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            deadPort = s.getLocalPort();
        }
        return ControlCodec.toBytes(new HelloMessage(7, new byte[0], QueuePairEndpoint.tcp(1, 0, "127.0.0.1",
            deadPort)));
    }

    @Test
    void helloWhoseQueuePairCannotBeReachedOpensNoSession() throws IOException
    {
        final long opened = server.counters().sessionsOpened();
        try (Bootstrap b = new Bootstrap(server.port()))
        {
            b.write(helloFromAnUnreachableQueuePair());
            assertNotNull(CodedRefusalMessage.as(MessageType.HELLO_REFUSED, b.read()), "the node says why first");
            assertTrue(b.closedByPeer(), "the node ends the connection of a session it could not open");
        }
        assertEquals(opened, server.counters().sessionsOpened(), "no session registered");
    }

    @Test
    void helloWhoseQueuePairCannotBeReachedIsRefusedWithTheReason() throws IOException
    {
        final CodedRefusalMessage refused = refusal(helloFromAnUnreachableQueuePair(), ReasonCode.INTERNAL);
        // The same words whatever failed: the reason must not tell a port scanner whether the port is open.
        assertEquals("cannot connect to the queue pair endpoint the HELLO named", refused.text());
    }

    @Test
    void truncatedHeaderEndsTheConnectionWithoutASession()
    {
        final long opened = server.counters().sessionsOpened();
        final byte[] hello = ControlCodec.toBytes(new HelloMessage(7, new byte[0], unreachableEndpoint("tcp")));
        try (Bootstrap b = new Bootstrap(server.port()))
        {
            b.write(Arrays.copyOf(hello, 10)).endOutput();
            assertTrue(b.closedByPeer(), "the node closes a connection whose header was cut");
        }
        try (Bootstrap b = new Bootstrap(server.port()))
        {
            b.write(Arrays.copyOf(hello, hello.length - 3)).endOutput();
            assertTrue(b.closedByPeer(), "the node closes a connection whose HELLO was cut");
        }
        assertEquals(opened, server.counters().sessionsOpened());
    }
}
