package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.chain.ChainCommit;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.peer.Status;
/**
 * Insert of a key found absent, under the insert lock of its first group (see
 * {@code BucketDescriptor#INSERT_LOCK_OFFSET}), so that one key never gets two slots:
 * <ol>
 * <li>CAS the lock 0 → our session id and READ both groups behind it (one doorbell);</li>
 * <li>lock taken by another session: retry later; the key appeared meanwhile: release the lock and say so;</li>
 * <li>CAS an empty slot of the emptier group 0 → the new block and release the lock (one doorbell).</li>
 * </ol>
 * The block itself was written by an earlier doorbell of the operation.
 */
final class InsertProtocol
{
    enum Outcome
    {
        /** The key now has the new block. */
        INSERTED,
        /** Another writer inserted the key first. */
        PRESENT,
        /** The lock was taken, a block changed under us or the slot was taken: read again. */
        RETRY,
        /** The table is full, the data is damaged or the lane failed: {@link #failure()} says which. */
        FAILED
    }

    private final KeyLocation key;
    private final LaneRequests requests;
    private final ChainCommit commit;
    private final BlockSearch search;
    private final NewBlock block;
    private final LaneCounters counters;
    private final long lockWord;
    private int failure;

    InsertProtocol(final KeyLocation key, final LaneRequests requests, final ChainCommit commit,
        final BlockSearch search, final NewBlock block,
        final LaneCounters counters, final long lockWord)
    {
        this.key = key;
        this.requests = requests;
        this.commit = commit;
        this.search = search;
        this.block = block;
        this.counters = counters;
        this.lockWord = lockWord;
    }

    /** Inserts the new block for the staged key; {@code seenNanos} is when the key was last seen absent. */
    Outcome insert(final long seenNanos)
    {
        if (requests.lockAndReadGroups(key, lockWord) != Status.OK)
        {
            return failed(requests.failure());
        }
        if (requests.lockResult() != 0L)
        {
            counters.increment(ClientCounter.LOCK_RETRIES);
            return Outcome.RETRY;
        }
        final BlockSearch.Outcome found = search.search();
        if (found != BlockSearch.Outcome.ABSENT)
        {
            requests.unlock(key, lockWord);
            return switch (found)
            {
                case FOUND -> Outcome.PRESENT;
                case CORRUPTED -> failed(Status.CORRUPTED);
                case FAILED -> failed(requests.failure());
                case MOVED -> failed(Status.MOVED);
                default -> Outcome.RETRY;
            };
        }
        final int candidate = key.emptyCandidate();
        if (candidate == KeyLocation.NONE)
        {
            // frozen empty slots are not free: a partition being moved is not full, its inserts wait
            requests.unlock(key, lockWord);
            return failed(key.frozen() ? Status.FROZEN : Status.TABLE_FULL);
        }
        final long slotAddress = key.slotAddress(candidate);
        final int committed = commit.casSlotAndUnlock(slotAddress, block.word(), key, lockWord);
        if (committed != Status.OK)
        {
            // the failure may be a backup's (its lane timed out, or the node fenced it): this lane's own failure()
            // is 0 then, and reporting that would acknowledge an insert no backup took
            return failed(committed);
        }
        if (requests.casResult() != 0L)
        {
            counters.increment(ClientCounter.CAS_RETRIES);
            return Outcome.RETRY;
        }
        final int rc = block.committed(slotAddress, 0L, seenNanos);
        return rc == Status.OK ? Outcome.INSERTED : failed(rc);
    }

    /** After {@link Outcome#FAILED}: the {@link Status} to report. */
    int failure()
    {
        return failure;
    }

    private Outcome failed(final int status)
    {
        failure = status;
        return Outcome.FAILED;
    }
}
