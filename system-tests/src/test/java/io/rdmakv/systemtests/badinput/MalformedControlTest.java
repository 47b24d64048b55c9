package io.rdmakv.systemtests.badinput;

import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Control messages over SEND/RECV that no correct client sends. The node answers what it can answer
 * with ERROR (MALFORMED_MESSAGE or UNEXPECTED_MESSAGE), counts it, keeps the session open, and keeps
 * serving every other client.
 */
class MalformedControlTest
{
    private static KvServer server;
    private RawSession raw;
    private long malformedBefore;

    @BeforeAll
    static void startNode()
    {
        server = LocalCluster.startNode();
    }

    @AfterAll
    static void stopNode()
    {
        LocalCluster.closeAll(server);
    }

    @BeforeEach
    void open()
    {
        raw = new RawSession(server.port());
        malformedBefore = server.counters().malformedMessages();
    }

    @AfterEach
    void sessionAndNodeSurvive()
    {
        try
        {
            assertEquals(WcStatus.SUCCESS, raw.send(new StatsMessage(4242)));
            final StatsOkMessage stats = assertInstanceOf(StatsOkMessage.class, raw.receive());
            assertEquals(4242, stats.requestId(), "the raw session still works after the bad message");
            TestSupport.assertServes(server, "malformed control messages");
        }
        finally
        {
            raw.close();
        }
    }

    private CodedRefusalMessage expectError(final byte[] message, final ReasonCode reason, final String text)
    {
        assertEquals(WcStatus.SUCCESS, raw.send(message), "the node takes the SEND");
        final ControlMessage reply = raw.receive();
        final CodedRefusalMessage error = CodedRefusalMessage.expect(MessageType.ERROR, reply);
        assertEquals(reason, error.reason(), error.text());
        assertTrue(error.text().contains(text), error.text());
        final long expected = malformedBefore + 1;
        Await.until("the node counts the bad message", Duration.ofSeconds(5),
            () -> server.counters().malformedMessages() == expected,
            () -> server.counters().malformedMessages() + " malformed, " + expected + " expected");
        return error;
    }

    @Test
    void unknownTypeIsAnsweredWithMalformed()
    {
        expectError(TestSupport.frame(0x7777, 16, 1, new byte[0]), ReasonCode.MALFORMED_MESSAGE,
            "unknown control message type " + 0x7777);
    }

    @Test
    void lengthThatDisagreesWithTheTypeIsMalformed()
    {
        expectError(TestSupport.frame(MessageType.STATS.code(), 24, 2, new byte[8]), ReasonCode.MALFORMED_MESSAGE,
            "STATS message length 24, must be 16");
    }

    @Test
    void lengthOverTheBytesSentIsTruncated()
    {
        final byte[] cut = TestSupport.frame(MessageType.ALLOC.code(), AllocMessage.LENGTH, 3, new byte[4]);
        expectError(cut, ReasonCode.MALFORMED_MESSAGE, "ALLOC message of 24 bytes truncated to 20");
    }

    @Test
    void shorterThanAHeaderIsTruncated()
    {
        expectError(new byte[] {8, 0, 16, 0, 0, 0, 0, 0}, ReasonCode.MALFORMED_MESSAGE, "truncated: 8 bytes");
    }

    @Test
    void freeWithACountOverTheLimitIsMalformed()
    {
        final ByteBuffer body = ByteBuffer.allocate(8 + FreeMessage.ENTRY_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        body.putInt(FreeMessage.MAX_ENTRIES + 1).putInt(0).putLong(64).putInt(64);
        expectError(TestSupport.frame(MessageType.FREE.code(), FreeMessage.lengthFor(1), 4, body.array()),
            ReasonCode.MALFORMED_MESSAGE, "FREE of " + (FreeMessage.MAX_ENTRIES + 1) + " entries");
    }

    @Test
    void freeOfNoEntriesIsMalformed()
    {
        expectError(TestSupport.frame(MessageType.FREE.code(), FreeMessage.ENTRIES_OFFSET, 5, new byte[8]),
            ReasonCode.MALFORMED_MESSAGE, "FREE of 0 entries");
    }

    @Test
    void allocOfNothingIsMalformed()
    {
        expectError(TestSupport.frame(MessageType.ALLOC.code(), AllocMessage.LENGTH, 6, new byte[8]),
            ReasonCode.MALFORMED_MESSAGE, "ALLOC of 0 bytes");
    }

    @Test
    void messagesOnlyTheNodeSendsAreUnexpected()
    {
        final CodedRefusalMessage error = expectError(ControlCodec.toBytes(new ShutdownMessage(77)),
            ReasonCode.UNEXPECTED_MESSAGE, "SHUTDOWN is not a request a client may send");
        assertEquals(77, error.requestId(), "the ERROR names the request");
        malformedBefore++;
        expectError(ControlCodec.toBytes(new AllocOkMessage(78, 64, 64, 0)),
            ReasonCode.UNEXPECTED_MESSAGE, "ALLOC_OK");
    }
}
