package io.rdmakv.client.internal.chain;

/**
 * Fault injection for tests of replicated writes: a hook that runs inside a write, after its first
 * backup's CAS succeeded and before the rest of its chain and its primary (the window a writer that dies
 * leaves a key in). Throwing from it abandons the write there, as a crash would. Not for production use.
 */
public final class ChainFaults
{
    private ChainFaults()
    {
    }

    /** Runs {@code hook} in every write after its first backup's CAS (null: none). */
    public static void afterFirstBackup(final Runnable hook)
    {
        ReplicaChain.afterFirstBackup = hook;
    }
}
