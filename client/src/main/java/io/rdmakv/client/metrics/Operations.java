package io.rdmakv.client.metrics;

import io.rdmakv.peer.Status;

/** The operation types and results the client metrics count, as label values and array indices. */
public final class Operations
{
    public static final int GET = 0;
    public static final int PUT = 1;
    public static final int DELETE = 2;
    public static final int COMPARE_AND_SET = 3;
    static final String[] NAMES = {"get", "put", "delete", "compare_and_set"};
    static final int COUNT = NAMES.length;

    /** Label values of {@code result}, indexed by {@link #resultIndex}. */
    static final String[] RESULTS = {"ok", "not_found", "conflict", "table_full", "out_of_space", "timeout",
        "connection_lost", "retries_exhausted", "remote_error", "node_shutting_down", "corrupted", "lease_expired",
        "frozen", "moved", "error"};
    static final int RESULT_COUNT = RESULTS.length;

    private Operations()
    {
    }

    /** Where a {@link Status} code is counted: 0..2 for outcomes, then one index per failure, last for others. */
    static int resultIndex(final int status)
    {
        if (status >= Status.OK && status <= Status.CONFLICT)
        {
            return status;
        }
        final int failure = Status.CONFLICT - status;
        return status < 0 && failure < RESULT_COUNT - 1 ? failure : RESULT_COUNT - 1;
    }
}
