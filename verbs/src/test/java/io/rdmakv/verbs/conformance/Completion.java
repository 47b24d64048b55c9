package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletion;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A copy of the fields of one {@link WorkCompletion} (the flyweight is reused by the next poll). */
record Completion(long wrId, WcStatus status, int statusCode, int opcode, int byteLen, int qpNum)
{
    static Completion of(final WorkCompletion wc)
    {
        return new Completion(wc.wrId(), wc.statusEnum(), wc.status(), wc.opcode(), wc.byteLen(), wc.qpNum());
    }

    boolean isSuccess()
    {
        return statusCode == 0;
    }

    /**
     * Asserts a successful completion of work request {@code expectedWrId}, with {@link WcOpcode}
     * {@code expectedOpcode}, on queue pair {@code expectedQpNum}.
     */
    Completion assertSuccess(final long expectedWrId, final int expectedOpcode, final int expectedQpNum)
    {
        assertEquals(WcStatus.SUCCESS, status, () -> "status of " + this);
        assertEquals(expectedWrId, wrId, () -> "wrId of " + this);
        assertEquals(expectedOpcode, opcode, () -> "opcode of " + this);
        assertEquals(expectedQpNum, qpNum, () -> "qpNum of " + this);
        return this;
    }

    /** Asserts that work request {@code wrId} completed with {@code expected}. */
    Completion assertStatus(final long expectedWrId, final WcStatus expected)
    {
        assertEquals(expectedWrId, wrId, () -> "wrId of " + this);
        assertEquals(expected, status, () -> "status of " + this);
        return this;
    }

    @Override
    public String toString()
    {
        return "Completion{wrId=" + wrId + ", status=" + status + "(" + statusCode + "), opcode=" + opcode +
            ", byteLen=" + byteLen + ", qpNum=" + qpNum + '}';
    }
}
