package io.rdmakv.client.internal.chain;

import io.rdmakv.client.internal.lane.Backoff;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.peer.Status;

/**
 * How a lane commits a slot change: on the primary alone while the key's group has no backup or copying node,
 * else along the key's {@link ReplicaChain} first (WRITEs, then the backups' CASes in chain order) and then on
 * the primary. The doorbells are {@link LaneRequests}'; the protocols call these three commits and read the
 * outcome as after a plain CAS ({@link LaneRequests#casResult()}).
 *
 * <p>When the first backup holds another writer's word, that write is finished first: a DELETE's empty word
 * right here on the primary (it names no block), any other by the primary (HELP, {@link StuckWrite}), or, when
 * the primary refuses (its writer is gone), the backups are put back and the chain runs again. A commit lost
 * that way reports the CAS lost: the CAS result then holds the word that won, never the expected one, so the
 * protocol re-reads or conflicts.
 */
public final class ChainCommit
{
    private final LaneRequests requests;
    private final SpaceLease space;
    private final ReplicaChain chain = new ReplicaChain();

    /** @param space the lane's grant on the primary, whose blocks the chain WRITEs to the other replicas */
    public ChainCommit(final LaneRequests requests, final SpaceLease space)
    {
        this.requests = requests;
        this.space = space;
    }

    /** This lane's backups for the operation under way (the router sets them; empty when not replicated). */
    public ReplicaChain chain()
    {
        return chain;
    }

    /** CASes the slot from {@code expected} to {@code swap}. */
    public int casSlot(final long slotAddress, final long expected, final long swap)
    {
        if (!chain.active())
        {
            return requests.casSlot(slotAddress, expected, swap);
        }
        final int rc = alongChain(slotAddress, expected, swap);
        if (rc != ReplicaChain.COMMITTED)
        {
            return rc == ReplicaChain.LOST ? Status.OK : rc;
        }
        return helpedAlong(settled(requests.casSlot(slotAddress, expected, swap), slotAddress, expected, swap),
            expected);
    }

    /** WRITEs the block {@code blockWord} names and CASes the slot to it. */
    public int writeAndCasSlot(final long blockWord, final int writeRkey, final long slotAddress, final long expected,
        final long swap)
    {
        if (!chain.active())
        {
            return requests.writeAndCasSlot(blockWord, writeRkey, slotAddress, expected, swap);
        }
        // the primary's copy of the block first: a backup's CAS may be helped onto the primary
        final int written = requests.writeBlock(blockWord, writeRkey);
        return written != Status.OK ? written : casSlot(slotAddress, expected, swap);
    }

    /** CASes an empty slot to {@code swap} and frees the insert lock. */
    public int casSlotAndUnlock(final long slotAddress, final long swap, final KeyLocation key, final long lockWord)
    {
        if (!chain.active())
        {
            return requests.casSlotAndUnlock(slotAddress, swap, key, lockWord);
        }
        final int rc = alongChain(slotAddress, 0L, swap);
        if (rc != ReplicaChain.COMMITTED)
        {
            // lost (the CAS result now says so) or failed: release the lock either way
            final long result = requests.casResult();
            requests.unlock(key, lockWord);
            requests.casResultIs(result);
            return rc == ReplicaChain.LOST ? Status.OK : rc;
        }
        return helpedAlong(settled(requests.casSlotAndUnlock(slotAddress, swap, key, lockWord), slotAddress, 0L, swap),
            0L);
    }

    /**
     * After the primary's CAS of a write the first backup took ({@code rc}, its result in the CAS result): when it
     * found the replaced word frozen ({@link FrozenReplica}: the primary has not yet lifted a freeze its backups
     * lifted), waits and CASes again until it is lifted, or gives up with {@link Status#TIMEOUT}. Otherwise {@code
     * rc} as it is. (Only the CAS runs again: an insert's lock went back with the first attempt.)
     */
    private int settled(final int rc, final long slotAddress, final long expected, final long swap)
    {
        if (rc != Status.OK || chain.backupCount() == 0 || !FrozenReplica.holdsFrozen(requests.casResult(), expected))
        {
            return rc;
        }
        final long start = System.nanoTime();
        for (int waits = 0; FrozenReplica.pause(start, waits); waits++)
        {
            final int again = requests.casSlot(slotAddress, expected, swap);
            if (again != Status.OK || !FrozenReplica.holdsFrozen(requests.casResult(), expected))
            {
                return again;
            }
        }
        return Status.TIMEOUT;
    }

    /**
     * Commits {@code expected -> swap} along the chain. Returns {@link ReplicaChain#COMMITTED}, {@link
     * ReplicaChain#LOST} (the CAS result then holds the word that won) or a failure.
     */
    private int alongChain(final long slotAddress, final long expected, final long swap)
    {
        final long slotOffset = slotAddress - requests.remote().indexAddress();
        for (int attempt = 0; attempt < Backoff.MAX_ATTEMPTS; attempt++)
        {
            int rc = chain.commit(slotOffset, expected, swap, requests.writeBlockAddress(), requests.io().lkey(), space);
            if (rc == ReplicaChain.FROZEN)
            {
                return Status.FROZEN;
            }
            if (rc != ReplicaChain.LOST)
            {
                return rc;
            }
            final long winner = chain.found();
            if (winner == SlotWord.EMPTY)
            {
                if ((rc = requests.casSlot(slotAddress, expected, SlotWord.EMPTY)) != Status.OK)
                {
                    return rc;
                }
                final long seen = requests.casResult();
                requests.casResultIs(seen == expected ? SlotWord.EMPTY : seen);
                return ReplicaChain.LOST;
            }
            final StuckWrite stuck = chain.stuck();
            switch (stuck.help(slotAddress, expected, winner))
            {
                case HELPED, CHANGED ->
                {
                    requests.casResultIs(stuck.slot() == expected ? winner : stuck.slot());
                    return ReplicaChain.LOST;
                }
                case REFUSED ->
                {
                    if ((rc = chain.revert(slotOffset, winner, expected)) != Status.OK)
                    {
                        return rc;
                    }
                }
                case FAILED ->
                {
                    return stuck.failure();
                }
            }
        }
        return Status.RETRIES_EXHAUSTED;
    }

    /**
     * After the primary's CAS of a committed chain with backups. The first backup took our word, so the write
     * happens whatever the primary's CAS found: our word already there (a writer that found it on the first backup
     * had the primary finish it), or even a later word (finished, then overwritten by a writer that read it). Only
     * a write whose session is gone is ever undone. So the CAS's result says {@code expected}: done.
     */
    private int helpedAlong(final int rc, final long expected)
    {
        // with no backup (a group of one, catching up a copying node), the primary's CAS itself decides
        if (rc == Status.OK && chain.backupCount() > 0)
        {
            requests.casResultIs(expected);
        }
        return rc;
    }
}
