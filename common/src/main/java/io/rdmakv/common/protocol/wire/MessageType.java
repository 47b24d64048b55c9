package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.DamageScanMessage;
import io.rdmakv.common.protocol.DamageScanOkMessage;
import io.rdmakv.common.protocol.FenceWritersMessage;
import io.rdmakv.common.protocol.FenceWritersOkMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.HeartbeatMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.HelpMessage;
import io.rdmakv.common.protocol.HelpReplyMessage;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import io.rdmakv.common.protocol.RepairMessage;
import io.rdmakv.common.protocol.RepairReplyMessage;
import io.rdmakv.common.protocol.ScrubOkMessage;
import io.rdmakv.common.protocol.SlotCasMessage;
import io.rdmakv.common.protocol.SlotCasReplyMessage;
import io.rdmakv.common.protocol.StatsOkMessage;

import static io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.HEADER_LENGTH;
import static io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.MAX_BOOTSTRAP_MESSAGE_LENGTH;
import static io.rdmakv.common.protocol.wire.MessageHeaderDescriptor.MAX_MESSAGE_LENGTH;

/** The control message types, their wire codes and the bounds on their length. */
public enum MessageType
{
    /** Client to server: open a session. */
    HELLO(1, HelloMessage.TOKEN_OFFSET, MAX_MESSAGE_LENGTH),
    /** Server to client: session open; where the region is and how it is laid out. */
    HELLO_OK(2, HelloOkMessage.ENDPOINT_OFFSET, MAX_BOOTSTRAP_MESSAGE_LENGTH),
    /** Server to client: session refused, with a reason. */
    HELLO_REFUSED(3, CodedText.TEXT_OFFSET, MAX_MESSAGE_LENGTH),
    /** Client to server: grant me space in the data area. */
    ALLOC(4, AllocMessage.LENGTH, AllocMessage.LENGTH),
    /** Server to client: a chunk of the data area is yours. */
    ALLOC_OK(5, AllocOkMessage.LENGTH, AllocOkMessage.LENGTH),
    /** Server to client: no space granted, with a reason. */
    ALLOC_FAILED(6, CodedText.TEXT_OFFSET, MAX_MESSAGE_LENGTH),
    /** Client to server: these blocks are no longer referenced. */
    FREE(7, FreeMessage.ENTRIES_OFFSET, MAX_MESSAGE_LENGTH),
    /** Client to server: send statistics. */
    STATS(8, HEADER_LENGTH, HEADER_LENGTH),
    /** Server to client: statistics. */
    STATS_OK(9, StatsOkMessage.LENGTH, StatsOkMessage.LENGTH),
    /** Client to server: closing the session. */
    BYE(10, HEADER_LENGTH, HEADER_LENGTH),
    /** Server to client: the server is going away. */
    SHUTDOWN(11, HEADER_LENGTH, HEADER_LENGTH),
    /** Either way: a request failed, with a reason. */
    ERROR(12, CodedText.TEXT_OFFSET, MAX_MESSAGE_LENGTH),
    /**
     * On the bootstrap connection only, both ways: still alive, keep my lease (client to node, with the oldest map
     * epoch an operation of the client may still run under); the echo that grants the read lease (node to client,
     * with the node's applied epoch).
     */
    HEARTBEAT(13, HeartbeatMessage.LENGTH, HeartbeatMessage.LENGTH),
    /** Client to node: clear this slot of my key, whose block is damaged. */
    REPAIR(14, RepairMessage.KEY_OFFSET, RepairMessage.MAX_LENGTH),
    /** Node to client: repaired, retry later, or refused with a reason. */
    REPAIR_REPLY(15, RepairReplyMessage.TEXT_OFFSET, RepairReplyMessage.MAX_LENGTH),
    /** Client to node: list the damaged slots of a range of bucket groups. */
    DAMAGE_SCAN(16, DamageScanMessage.LENGTH, DamageScanMessage.LENGTH),
    /** Node to client: the damaged slots of a range of bucket groups, and where the next page starts. */
    DAMAGE_SCAN_OK(17, DamageScanOkMessage.ENTRIES_OFFSET, MAX_MESSAGE_LENGTH),
    /** Client to primary node: finish a replicated write stuck between its first backup and the primary. */
    HELP(18, HelpMessage.KEY_OFFSET, HelpMessage.MAX_LENGTH),
    /** Primary node to client: helped, refused (put the backups back) or changed. */
    HELP_REPLY(19, HelpReplyMessage.LENGTH, HelpReplyMessage.LENGTH),
    /** Primary node to its backup: fence every session of these writers (their sessions on the primary ended). */
    FENCE_WRITERS(20, FenceWritersMessage.WRITERS_OFFSET, MAX_MESSAGE_LENGTH),
    /** Node to primary: those writers' sessions are fenced. */
    FENCE_WRITERS_OK(21, FenceWritersOkMessage.LENGTH, FenceWritersOkMessage.LENGTH),
    /** Client to primary node: scrub the backups now ({@code kvctl scrub}). */
    SCRUB(22, HEADER_LENGTH, HEADER_LENGTH),
    /** Primary node to client: what the scrub did. */
    SCRUB_OK(23, ScrubOkMessage.LENGTH, ScrubOkMessage.LENGTH),
    /** Client to a backup or copying node: a window over the extent my session holds on the group's primary. */
    BIND_WINDOW(24, GrantMessage.LENGTH, GrantMessage.LENGTH),
    /** Node to client: the window is bound, with its rkey. */
    WINDOW_BOUND(25, GrantReplyMessage.LENGTH, GrantReplyMessage.LENGTH),
    /** Backup or copying node to its primary: does this session hold this grant? */
    CHECK_GRANT(26, GrantMessage.LENGTH, GrantMessage.LENGTH),
    /** Primary to node: whether it does. */
    GRANT_CHECKED(27, GrantReplyMessage.LENGTH, GrantReplyMessage.LENGTH),
    /** Primary to a backup or copying node: drop every window bound for this grant. */
    REVOKE_GRANT(28, GrantMessage.LENGTH, GrantMessage.LENGTH),
    /** Node to primary: they are gone. */
    GRANT_REVOKED(29, GrantReplyMessage.LENGTH, GrantReplyMessage.LENGTH),
    /** Client to a node whose clients cannot CAS its index: compare-and-swap these index words for me. */
    SLOT_CAS(30, SlotCasMessage.lengthOf(1), SlotCasMessage.MAX_LENGTH),
    /** Node to client: the word each held before. */
    SLOT_CAS_REPLY(31, SlotCasReplyMessage.lengthOf(1), SlotCasReplyMessage.MAX_LENGTH),
    /** Client to any node of a ZooKeeper cluster: write this move request to {@code rebalance/request}, or judge it. */
    REBALANCE(32, RebalanceMessage.JSON_OFFSET + 1, RebalanceMessage.MAX_LENGTH),
    /** Node to client: requested, or (dry run) whether the coordinator could act on it now, with why not. */
    REBALANCE_OK(33, RebalanceOkMessage.TEXT_OFFSET, RebalanceOkMessage.MAX_LENGTH);

    private static final MessageType[] BY_CODE;

    static
    {
        int max = 0;
        for (final MessageType type : values())
        {
            max = Math.max(max, type.code);
        }
        BY_CODE = new MessageType[max + 1];
        for (final MessageType type : values())
        {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;
    private final int minLength;
    private final int maxLength;

    MessageType(final int code, final int minLength, final int maxLength)
    {
        this.code = code;
        this.minLength = minLength;
        this.maxLength = maxLength;
    }

    /** The wire code (the header's type field). */
    public int code()
    {
        return code;
    }

    /** The shortest valid message of this type, header included. */
    public int minLength()
    {
        return minLength;
    }

    /** The longest valid message of this type, header included. */
    public int maxLength()
    {
        return maxLength;
    }

    /** Whether every message of this type has the same length. */
    public boolean isFixedLength()
    {
        return minLength == maxLength;
    }

    /** The type with wire code {@code code}, or null when there is none. */
    public static MessageType of(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
