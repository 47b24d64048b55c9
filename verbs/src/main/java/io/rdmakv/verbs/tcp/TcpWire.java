package io.rdmakv.verbs.tcp;

import java.lang.foreign.MemorySegment;

/**
 * The {@code tcp} provider's wire format, all little-endian. A queue pair uses two TCP connections,
 * one per direction: on each, the requester writes requests and the responder answers every request
 * with one response, in order.
 *
 * <pre>
 * Request (40 bytes, then the payload of a WRITE or SEND):
 *   0 opcode u8 (ibv_wr_opcode)  1 flags u8  2 reserved u16  4 length u32 (payload or READ length)
 *   8 remote_addr u64   16 rkey u32   20 reserved u32   24 compare_add u64   32 swap u64
 *
 * Response (16 bytes, then the data of a successful READ):
 *   0 status u8 (ibv_wc_status)  1 opcode u8  2 reserved u16  4 length u32 (READ data length)
 *   8 value u64 (the original value of an atomic)
 *
 * Every payload is padded with zeros to a multiple of 8 bytes, so frames stay 8-byte aligned and a
 * READ copies registered memory in whole aligned words: a concurrent atomic on a word is never torn.
 *
 * Handshake, requester to the responder's listener (24 bytes), answered by a u32 status:
 *   0 magic u32 "RKVT"  4 target qp_num u32  8 source qp_num u32  12 rnr_retry u8, 3 reserved
 *  16 secret u64 (the target queue pair's, from its endpoint)
 * </pre>
 *
 * The device answers OK only to a hello whose secret is the target's and whose source is the peer the
 * target was told to connect to (or, while the target is still in INIT, holds the connection unserved
 * until its RTR names the peer). Every other hello gets {@link #HANDSHAKE_REFUSED}, whatever the reason,
 * so the answer does not tell a stranger which queue pairs exist.
 */
final class TcpWire
{
    static final int REQ_OPCODE_OFFSET = 0;
    static final int REQ_FLAGS_OFFSET = 1;
    static final int REQ_LENGTH_OFFSET = 4;
    static final int REQ_REMOTE_ADDR_OFFSET = 8;
    static final int REQ_RKEY_OFFSET = 16;
    static final int REQ_COMPARE_ADD_OFFSET = 24;
    static final int REQ_SWAP_OFFSET = 32;
    static final int REQ_HEADER_LENGTH = 40;

    static final int RESP_STATUS_OFFSET = 0;
    static final int RESP_OPCODE_OFFSET = 1;
    static final int RESP_LENGTH_OFFSET = 4;
    static final int RESP_VALUE_OFFSET = 8;
    static final int RESP_HEADER_LENGTH = 16;

    static final int HANDSHAKE_MAGIC = 0x54564b52; // "RKVT" little-endian
    static final int HANDSHAKE_TARGET_OFFSET = 4;
    static final int HANDSHAKE_SOURCE_OFFSET = 8;
    static final int HANDSHAKE_RNR_RETRY_OFFSET = 12;
    static final int HANDSHAKE_SECRET_OFFSET = 16;
    static final int HANDSHAKE_LENGTH = 24;
    static final int HANDSHAKE_REPLY_LENGTH = 4;
    static final int HANDSHAKE_OK = 0;
    static final int HANDSHAKE_REFUSED = 1;
    /** Only to a hello that proved itself: the target is already connected to it, or failed. */
    static final int HANDSHAKE_QP_BUSY = 2;

    /** Zero bytes that follow a payload of {@code length} bytes. */
    static int padding(final long length)
    {
        return (int)(-length & 7);
    }

    /** Socket buffer for each direction; large enough that a chain of READs never waits on the socket. */
    static final int BUFFER_LENGTH = 256 * 1024;

    /** The responder's input and output buffer per connection: bounds what a peer that does not read can queue. */
    static final int RESPONDER_BUFFER_LENGTH = 64 * 1024;

    /** All of the process's memory, addressed absolutely: how the software NIC touches registered memory. */
    static final MemorySegment ALL_MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private TcpWire()
    {
    }
}
