package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageType;

/**
 * A decoded control message: one record per {@link MessageType} (one, {@link CodedRefusalMessage}, for the
 * three that carry a reason code and text), each documenting its body layout.
 * Encode and decode with {@link ControlCodec}. Records copy the arrays they are given and return copies,
 * so they are immutable values.
 */
public sealed interface ControlMessage permits
    HelloMessage, HelloOkMessage, CodedRefusalMessage, AllocMessage, AllocOkMessage, FreeMessage,
    StatsMessage, StatsOkMessage, ByeMessage, ShutdownMessage, HeartbeatMessage, RepairMessage,
    RepairReplyMessage, DamageScanMessage, DamageScanOkMessage, HelpMessage, HelpReplyMessage,
    FenceWritersMessage, FenceWritersOkMessage, ScrubMessage, ScrubOkMessage, GrantMessage, GrantReplyMessage,
    SlotCasMessage, SlotCasReplyMessage, RebalanceMessage, RebalanceOkMessage
{
    /** The message's type. */
    MessageType type();

    /** The header's request id: chosen by the requester, echoed by the reply, 0 when unsolicited. */
    long requestId();

    /** The encoded length, header included. */
    int encodedLength();
}
