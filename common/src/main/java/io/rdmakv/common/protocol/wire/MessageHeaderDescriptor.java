package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;

/**
 * Layout of the header every control message starts with. Control messages travel two-sided (SEND/RECV)
 * once a queue pair is up, and over the TCP bootstrap connection before (HELLO, HELLO_OK, HELLO_REFUSED);
 * the bytes are the same on both. All fields are little-endian.
 *
 * <pre>
 *   0            2            4                          8                                        16
 *   +------------+------------+--------------------------+----------------------------------------+
 *   | type u16   | flags u16  | length u32               | request_id u64                         |
 *   +------------+------------+--------------------------+----------------------------------------+
 *  16 body (layout per type, see the *Message records)
 * </pre>
 *
 * <ul>
 *   <li><b>type</b>: a {@link MessageType} code.</li>
 *   <li><b>flags</b>: reserved, zero; decoders ignore them.</li>
 *   <li><b>length</b>: of the whole message, header included.</li>
 *   <li><b>request_id</b>: chosen by the requester, echoed in the reply; 0 in unsolicited messages.</li>
 * </ul>
 *
 * A message sent over RDMA is at most {@value #MAX_MESSAGE_LENGTH} bytes, the size of a receive buffer.
 * HELLO_OK, which carries the cluster map and only travels over the bootstrap connection, may be up to
 * {@value #MAX_BOOTSTRAP_MESSAGE_LENGTH} bytes.
 */
public final class MessageHeaderDescriptor
{
    /**
     * The version of the control protocol, carried in HELLO and HELLO_OK. 3: HELLO_OK carries the cluster map
     * in binary, and ALLOC_OK the rkey a chunk is written with (a memory window per grant). 4: the map may
     * carry replica groups (kind 2). 5: HELLO carries the writer id; FENCE_WRITERS. 6: ALLOC_OK carries the
     * grant's secret; BIND_WINDOW, CHECK_GRANT and REVOKE_GRANT (windows on a replicated group's backups).
     * 7: the map (format 2) carries its fence epoch; HELLO_OK's flags (its reserved u16 at 22) say whether
     * clients CAS the index themselves or send SLOT_CAS (the node-assisted write path, a device without remote
     * atomics); HELLO_OK carries an rdma_cm ticket (cm_port, cm_token, cm_address: {@code CmTicket}).
     * 8: HEARTBEAT carries an epoch both ways ({@code HeartbeatMessage}); HELLO_OK carries the node's map area
     * (address, length, rkey: the map it serves, for one-sided READs); the map (format 3) carries a segment table
     * (each partition's index segment on its group), and a key's candidate groups lie in its partition's segment
     * (layout version 2).
     * 9: a key-value block's header is 24 bytes, with the {@code origin} a partition copier stamps ({@code
     * KvBlockDescriptor}); versions are salted by placement ({@code VersionSalt}). Clients and nodes of protocol 8
     * read each other's blocks wrongly, so they must not meet.
     */
    public static final int PROTOCOL_VERSION = 10;

    public static final int TYPE_OFFSET = 0;
    public static final int FLAGS_OFFSET = TYPE_OFFSET + Short.BYTES;
    public static final int LENGTH_OFFSET = FLAGS_OFFSET + Short.BYTES;
    public static final int REQUEST_ID_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    public static final int HEADER_LENGTH = REQUEST_ID_OFFSET + Long.BYTES;

    /** The largest message sent over RDMA SEND: every receive buffer holds this many bytes. */
    public static final int MAX_MESSAGE_LENGTH = 4096;

    /** The largest message on the TCP bootstrap connection (HELLO_OK with a large cluster map). */
    public static final int MAX_BOOTSTRAP_MESSAGE_LENGTH = 65536;

    private MessageHeaderDescriptor()
    {
    }

    /** The type code of the message at {@code offset} (unchecked). */
    public static int type(final MemorySegment segment, final long offset)
    {
        return LittleEndian.u16(segment, offset + TYPE_OFFSET);
    }

    public static int flags(final MemorySegment segment, final long offset)
    {
        return LittleEndian.u16(segment, offset + FLAGS_OFFSET);
    }

    /** The length field of the message at {@code offset}, unsigned (unchecked). */
    public static long length(final MemorySegment segment, final long offset)
    {
        return segment.get(LittleEndian.U32, offset + LENGTH_OFFSET) & 0xFFFF_FFFFL;
    }

    public static long requestId(final MemorySegment segment, final long offset)
    {
        return segment.get(LittleEndian.U64, offset + REQUEST_ID_OFFSET);
    }

    /** Writes a header; flags are zero. */
    public static void write(
        final MemorySegment segment, final long offset, final MessageType type, final int length, final long requestId)
    {
        LittleEndian.u16(segment, offset + TYPE_OFFSET, type.code());
        LittleEndian.u16(segment, offset + FLAGS_OFFSET, 0);
        segment.set(LittleEndian.U32, offset + LENGTH_OFFSET, length);
        segment.set(LittleEndian.U64, offset + REQUEST_ID_OFFSET, requestId);
    }
}
