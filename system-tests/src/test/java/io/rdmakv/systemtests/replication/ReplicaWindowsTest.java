package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.Scrubs;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory windows in a replicated group (docs/design.md, "Windows in a replicated group"): on a backup, a session
 * writes exactly the extent the group's primary granted its writer, through a window the backup bound after
 * checking that grant with the primary, and nothing else; a grant the primary superseded is writable nowhere.
 * Before windows, any authenticated session could WRITE a well-formed block over any block of a backup, which a
 * failover then served (issue 21).
 */
class ReplicaWindowsTest
{
    private static final Duration REPLY = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private ReplicatedPair group;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(group);
    }

    @Test
    void aBackupIsWritableOnlyThroughTheWriterOfAGrantItsPrimaryHolds()
    {
        group = ReplicatedPair.start(dir, 2, ServerConfig.local(LocalCluster.MEMORY).withScrubInterval(0));
        final KvServer backup = group.nodes[1];
        assertTrue(group.nodes[0].memoryWindows() && backup.memoryWindows(), "windows on every replica");
        final byte[] key = LocalCluster.bytes("acknowledged");
        final byte[] value = new byte[200];
        Arrays.fill(value, (byte)7);
        try (KvClient client = group.client())
        {
            client.put(key, value);
            assertTrue(backup.counters().get(ServerCounter.REPLICA_WINDOWS_BOUND) >= 1,
                "the writer's block reached the backup through a window over its grant");

            // a session that was granted nothing there cannot WRITE the backup's copy of a block
            try (RegionView view = new RegionView(group.ports[1]); RawSession hostile = new RawSession(group.ports[1]))
            {
                final RegionView.Slot slot = view.find(key);
                final RemoteRegion data = hostile.hello().dataRegion();
                final long at = data.addressOf(slot.blockOffset() - view.geometry().dataOffset());
                assertNotEquals(WcStatus.SUCCESS, hostile.write(at, data.rkey(), 64),
                    "the data area's rkey grants no WRITE");
                assertArrayEquals(value, Arrays.copyOf(view.bytes(view.valueOffset(slot), value.length), value.length),
                    "the backup's copy is untouched");
            }
        }
        group.assertReplicasEqual();
    }

    @Test
    void aWindowNeedsTheWritersOwnLiveGrantAndDiesWithIt()
    {
        group = ReplicatedPair.start(dir, 2, ServerConfig.local(LocalCluster.MEMORY).withScrubInterval(0));
        final long writer = HelloMessage.newWriterId();
        try (RawSession onPrimary = new RawSession(group.ports[0], writer);
             RawSession onBackup = new RawSession(group.ports[1], writer);
             RawSession otherWriter = new RawSession(group.ports[1]))
        {
            final AllocOkMessage first = alloc(onPrimary, 1);
            assertNotEquals(0, first.grantSecret(), "a replicated group's grant carries a secret");
            final long session = onPrimary.hello().sessionId();

            // another writer naming that grant, or the writer with a wrong secret or extent: refused
            refused(call(otherWriter, bind(2, session, first, first.grantSecret())));
            refused(call(onBackup, bind(3, session, first, first.grantSecret() + 1)));
            refused(call(onBackup, GrantMessage.bind(4, session, first.chunkOffset(), first.chunkLength() + 64,
                first.grantSecret())));

            // the writer itself gets a window over exactly its extent
            final int rkey = bound(call(onBackup, bind(5, session, first, first.grantSecret())));
            final RemoteRegion data = onBackup.hello().dataRegion();
            assertEquals(WcStatus.SUCCESS, onBackup.write(data.addressOf(first.chunkOffset()), rkey, 64));

            // a node that is no primary grants nothing
            final ControlMessage allocOnBackup = call(onBackup, new AllocMessage(6, 4096));
            assertEquals(ReasonCode.UNEXPECTED_MESSAGE,
                CodedRefusalMessage.expect(MessageType.ALLOC_FAILED, allocOnBackup).reason(), allocOnBackup.toString());

            // the writer moves on: its previous grant is revoked on the backup before the new one is granted
            final long revokedBefore = group.nodes[1].counters().get(ServerCounter.REPLICA_WINDOWS_REVOKED);
            final AllocOkMessage second = alloc(onPrimary, 7);
            assertNotEquals(first.grantSecret(), second.grantSecret());
            assertEquals(revokedBefore + 1, group.nodes[1].counters().get(ServerCounter.REPLICA_WINDOWS_REVOKED));
            try (RawSession again = new RawSession(group.ports[1], writer))
            {
                refused(call(again, bind(8, session, first, first.grantSecret())));
                final int newer = bound(call(again, bind(9, session, second, second.grantSecret())));
                assertEquals(WcStatus.SUCCESS, again.write(data.addressOf(second.chunkOffset()), newer, 64));
            }
            assertNotEquals(WcStatus.SUCCESS, onBackup.write(data.addressOf(first.chunkOffset()), rkey, 64),
                "the superseded grant's window is gone");
        }
    }

    /**
     * The primary's scrub writes its block over a backup's through a window of its own (the primary's grant of its
     * whole data area to its scrub): a backup slot cleared behind its primary's back is put back, block first.
     */
    @Test
    void theScrubWritesABackupThroughItsOwnWindow() throws Exception
    {
        group = ReplicatedPair.start(dir, 2, ServerConfig.local(LocalCluster.MEMORY).withScrubInterval(0));
        final KvServer primary = group.nodes[0];
        final byte[] moved = LocalCluster.bytes("cleared");
        final byte[] value = new byte[100];
        Arrays.fill(value, (byte)3);
        try (KvClient client = group.client())
        {
            client.put(moved, value);
            try (RegionView backup = new RegionView(group.ports[1]))
            {
                backup.swapSlot(backup.find(moved), SlotWord.EMPTY);
            }
            final long boundBefore = group.nodes[1].counters().get(ServerCounter.REPLICA_WINDOWS_BOUND);
            final Scrubs.Pass first = primary.scrubNow().get(30, TimeUnit.SECONDS);
            assertEquals(0, first.wordsRepaired(), "a different word is acted on when the next pass sees it again");
            final Scrubs.Pass second = primary.scrubNow().get(30, TimeUnit.SECONDS);
            assertEquals(1, second.wordsRepaired(), "put back to the primary's word");
            assertTrue(group.nodes[1].counters().get(ServerCounter.REPLICA_WINDOWS_BOUND) > boundBefore,
                "the scrub bound its window on the backup to write the block");
            assertArrayEquals(value, client.get(moved));
        }
        group.assertReplicasEqual();
    }

    private static GrantMessage bind(final long id, final long session, final AllocOkMessage grant, final long secret)
    {
        return GrantMessage.bind(id, session, grant.chunkOffset(), grant.chunkLength(), secret);
    }

    private static AllocOkMessage alloc(final RawSession session, final long id)
    {
        final ControlMessage reply = call(session, new AllocMessage(id, 4096));
        assertTrue(reply instanceof AllocOkMessage, String.valueOf(reply));
        return (AllocOkMessage)reply;
    }

    private static ControlMessage call(final RawSession session, final ControlMessage request)
    {
        assertEquals(WcStatus.SUCCESS, session.send(request));
        final ControlMessage reply = session.receive(REPLY);
        assertNotNull(reply, "no answer to " + request);
        assertEquals(request.requestId(), reply.requestId(), reply.toString());
        return reply;
    }

    private static int bound(final ControlMessage reply)
    {
        final GrantReplyMessage bound = GrantReplyMessage.as(MessageType.WINDOW_BOUND, reply);
        assertNotNull(bound, String.valueOf(reply));
        return bound.value();
    }

    private static void refused(final ControlMessage reply)
    {
        assertEquals(ReasonCode.GRANT_UNKNOWN, CodedRefusalMessage.expect(MessageType.ERROR, reply).reason(),
            String.valueOf(reply));
    }
}
