package io.rdmakv.verbs;

import io.rdmakv.verbs.abi.IbvWc;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/** Flyweight over one {@code struct ibv_wc}. Setters exist for providers that fill completions in software. */
public final class WorkCompletion
{
    private final MemorySegment wc;

    WorkCompletion(final MemorySegment wc)
    {
        this.wc = wc;
    }

    public long wrId()
    {
        return wc.get(JAVA_LONG_UNALIGNED, IbvWc.WR_ID_OFFSET);
    }

    /** The ibverbs numeric status; 0 is success. */
    public int status()
    {
        return wc.get(JAVA_INT_UNALIGNED, IbvWc.STATUS_OFFSET);
    }

    public WcStatus statusEnum()
    {
        return WcStatus.of(status());
    }

    public boolean isSuccess()
    {
        return status() == 0;
    }

    /** The {@link WcOpcode}; only meaningful when the status is success. */
    public int opcode()
    {
        return wc.get(JAVA_INT_UNALIGNED, IbvWc.OPCODE_OFFSET);
    }

    public int vendorErr()
    {
        return wc.get(JAVA_INT_UNALIGNED, IbvWc.VENDOR_ERR_OFFSET);
    }

    /** Bytes received (RECV) or transferred (RDMA READ and atomics report theirs on some devices). */
    public int byteLen()
    {
        return wc.get(JAVA_INT_UNALIGNED, IbvWc.BYTE_LEN_OFFSET);
    }

    public int qpNum()
    {
        return wc.get(JAVA_INT_UNALIGNED, IbvWc.QP_NUM_OFFSET);
    }

    public int wcFlags()
    {
        return wc.get(JAVA_INT_UNALIGNED, IbvWc.WC_FLAGS_OFFSET);
    }

    /** Fills the fields a software provider reports; the others are zeroed. */
    public WorkCompletion fill(final long wrId, final int status, final int opcode, final int byteLen, final int qpNum)
    {
        wc.set(JAVA_LONG_UNALIGNED, IbvWc.WR_ID_OFFSET, wrId);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.STATUS_OFFSET, status);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.OPCODE_OFFSET, opcode);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.VENDOR_ERR_OFFSET, 0);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.BYTE_LEN_OFFSET, byteLen);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.IMM_DATA_OFFSET, 0);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.QP_NUM_OFFSET, qpNum);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.SRC_QP_OFFSET, 0);
        wc.set(JAVA_INT_UNALIGNED, IbvWc.WC_FLAGS_OFFSET, 0);
        wc.set(JAVA_LONG_UNALIGNED, IbvWc.PKEY_INDEX_OFFSET, 0L);
        return this;
    }

    /** Copies the entry from another completion array's flyweight. */
    public WorkCompletion copyFrom(final WorkCompletion other)
    {
        MemorySegment.copy(other.wc, 0, wc, 0, IbvWc.SIZE);
        return this;
    }

    public MemorySegment segment()
    {
        return wc;
    }

    @Override
    public String toString()
    {
        return "WorkCompletion{wrId=" + wrId() + ", status=" + statusEnum() + ", opcode=" + opcode() +
            ", byteLen=" + byteLen() + ", qpNum=" + qpNum() + '}';
    }
}
