package io.rdmakv.client.internal.chain;

import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.ReplicaWindow;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.SlotWord;

/**
 * The backups of the key a lane is writing, and the commit of a slot change along them (chain
 * replication of the slot CAS, FUSEE-CR style). Set per operation by the router ({@link #clear()},
 * {@link #backup}, {@link #copying}); every entry is this thread's lane to that node.
 *
 * <p>A commit, before the primary's CAS:
 * <ol>
 * <li>the new block is WRITTEN to every backup and every copying node, at the offset the primary granted
 *     (same layout on every replica), and each WRITE has completed before any backup CAS: whoever later
 *     finds the slot changed on a backup may push that word down the chain, so its block must already be
 *     everywhere. (The primary's own WRITE went out in the operation's first doorbell, or is sent first by
 *     {@link ChainCommit}.)</li>
 * <li>the slot is CASed on the backups in chain order. The first backup decides races: a writer whose CAS
 *     there finds another word {@code f} lost to the writer of {@code f}; it helps {@code f} down the rest of
 *     the chain (CAS from the word it expected to {@code f}, a no-op where that writer already got through),
 *     and {@link ChainCommit} helps it onto the primary and reports the CAS lost, so the protocol re-reads and
 *     retries, or reports the conflict (compare-and-set, insert-if-absent).</li>
 * </ol>
 * So along backups 1..k then the primary, a prefix of the chain may be one step ahead of the rest, never
 * behind: the first backup always holds the newest word, which is why failover promotes it.
 *
 * <p>Copying nodes get the block only (no CAS): they catch up with the primary's slots themselves. A copying
 * node that cannot be reached is skipped (it will be dropped from its group, or will redo its copy).
 *
 * <p>Allocation-free; runs on the thread that owns every lane involved.
 */
public final class ReplicaChain
{
    /** {@link #commit} outcome: every backup now holds the new word. */
    static final int COMMITTED = 0;
    /** {@link #commit} outcome: the first backup held another word ({@link #found()}); it was helped along. */
    static final int LOST = 1;
    /**
     * {@link #commit} outcome: the first backup's slot is frozen for a move ({@link SlotWord#MOVING}, in {@link
     * #found()}): nothing was decided, and nothing is helped or put back (the node freezing settles the chain).
     */
    static final int FROZEN = 2;

    /** Test hook: runs after the first backup's CAS succeeded, before the rest of the chain (fault injection). */
    static volatile Runnable afterFirstBackup;

    private final LaneRequests[] backups = new LaneRequests[io.rdmakv.common.cluster.ReplicaGroup.MAX_REPLICAS];
    private final LaneRequests[] copying = new LaneRequests[io.rdmakv.common.cluster.ReplicaGroup.MAX_REPLICAS];
    /** Each backup's and copying node's window over the primary's grant, in the order of the arrays above. */
    private final ReplicaWindow[] backupWindows = new ReplicaWindow[io.rdmakv.common.cluster.ReplicaGroup.MAX_REPLICAS];
    private final ReplicaWindow[] copyingWindows =
        new ReplicaWindow[io.rdmakv.common.cluster.ReplicaGroup.MAX_REPLICAS];
    /** Each backup's control channel, in chain order (a REPAIR goes along them: {@link DamageRepair}). */
    private final ControlChannel[] backupControls =
        new ControlChannel[io.rdmakv.common.cluster.ReplicaGroup.MAX_REPLICAS];
    private int backupCount;
    private int copyingCount;
    private long found;
    /**
     * Whether the CAS that decides (the first backup's; the primary's with no backup) was sent and not seen to
     * lose: the write may be done there, whatever happens to the rest of the chain. With the word it replaced:
     * what a failed operation must check before it runs again, so that it does not take effect twice.
     */
    private boolean wordMayBeTaken;
    private long tookExpected;
    private long tookSwap;
    private long trips;
    private StuckWrite stuck;

    public void clear()
    {
        for (int i = 0; i < backupCount; i++)
        {
            backups[i] = null;
            backupControls[i] = null;
            backupWindows[i] = null;
        }
        for (int i = 0; i < copyingCount; i++)
        {
            copying[i] = null;
            copyingWindows[i] = null;
        }
        backupCount = 0;
        copyingCount = 0;
    }

    /** How a lost chain asks the primary to finish a stuck write (set once by the lane). */
    public void resolver(final StuckWrite stuck)
    {
        this.stuck = stuck;
    }

    StuckWrite stuck()
    {
        return stuck;
    }

    /**
     * Round trips to backups since the last call: the operation's, which the primary lane counts (each backup
     * lane takes its ring back out of its own count, so totals count each once).
     */
    public long takeTrips()
    {
        final long t = trips;
        trips = 0;
        return t;
    }

    /**
     * Adds the next backup in chain order: the doorbells of this thread's lane to it, and that lane's control
     * channel (a REPAIR goes along the backups).
     */
    public void backup(final LaneRequests lane, final ControlChannel control, final ReplicaWindow window)
    {
        backupControls[backupCount] = control;
        backupWindows[backupCount] = window;
        backups[backupCount++] = lane;
    }

    /** Adds a copying node: this thread's lane to it, and that lane's window over the primary's grant there. */
    public void copying(final LaneRequests lane, final ReplicaWindow window)
    {
        copyingWindows[copyingCount] = window;
        copying[copyingCount++] = lane;
    }

    /** Whether a write must go along a chain (the key's group has backups or copying nodes). */
    public boolean active()
    {
        return backupCount + copyingCount > 0;
    }

    public int backupCount()
    {
        return backupCount;
    }

    /** Backup {@code i}'s control channel (chain order, from 0). */
    public ControlChannel backupControl(final int i)
    {
        return backupControls[i];
    }

    /**
     * Whether the last commit's word may have been taken where it decides (the first backup, or the primary in a
     * chain of no backup), though an answer may be missing: see {@link #tookExpected}.
     */
    public boolean wordMayBeTaken()
    {
        return wordMayBeTaken;
    }

    public long tookExpected()
    {
        return tookExpected;
    }

    /** The word the last commit would have installed where it decides. */
    public long tookSwap()
    {
        return tookSwap;
    }

    /** Forgets the last commit (a new operation begins). */
    public void forget()
    {
        wordMayBeTaken = false;
    }

    /** After {@link #LOST}: the word the first backup held. */
    long found()
    {
        return found;
    }

    /**
     * Writes the block (when {@code swap} names one, from {@code localAddress} under {@code lkey}, carved from the
     * primary's grant {@code grant}) to every backup and copying node, each through its window over that grant
     * (bound first if it has none yet: {@link ReplicaWindow}), then CASes slot {@code slotOffset} (from the index's
     * start) from {@code expected} to {@code swap} along the backups. Returns {@link #COMMITTED}, {@link #LOST} or
     * a failure (negative {@link Status}) of a backup's lane.
     */
    int commit(final long slotOffset, final long expected, final long swap, final long localAddress, final int lkey,
        final SpaceLease grant)
    {
        wordMayBeTaken = false;
        final boolean block = swap != SlotWord.EMPTY;
        if (block)
        {
            for (int i = 0; i < backupCount; i++)
            {
                final int rc = backupWindows[i].cover(grant);
                if (rc != Status.OK)
                {
                    return rc;
                }
            }
            for (int i = 0; i < copyingCount; i++)
            {
                if (copyingWindows[i].cover(grant) != Status.OK)
                {
                    continue; // as for a WRITE that fails there: the copying node copies the block itself
                }
                copying[i].replicaWrite(localAddress, lkey, swap);
                copying[i].chargedToPrimary();
                trips++;
            }
            for (int i = 1; i < backupCount; i++)
            {
                final int rc = backups[i].replicaWrite(localAddress, lkey, swap);
                backups[i].chargedToPrimary();
                trips++;
                if (rc != Status.OK)
                {
                    return rc;
                }
            }
        }
        // From here the write may take effect (the primary's CAS decides when there is no backup, else the first
        // backup's) even if no answer comes back: a failed operation checks before it runs again.
        wordMayBeTaken = true;
        tookExpected = expected;
        tookSwap = swap;
        if (backupCount == 0)
        {
            return COMMITTED;
        }
        final LaneRequests first = backups[0];
        int rc = block ? first.replicaWriteAndCas(localAddress, lkey, swap, slotOffset, expected) :
            first.replicaCas(slotOffset, expected, swap);
        first.chargedToPrimary();
        trips++;
        if (rc != Status.OK)
        {
            return rc;
        }
        final long seen = first.casResult();
        if (seen != expected)
        {
            wordMayBeTaken = false;
            found = seen;
            return SlotWord.isMoving(seen) ? FROZEN : help(slotOffset, expected, seen);
        }
        final Runnable hook = afterFirstBackup;
        if (hook != null)
        {
            hook.run();
        }
        for (int i = 1; i < backupCount; i++)
        {
            if ((rc = casLater(backups[i], slotOffset, expected, swap)) != Status.OK)
            {
                return rc;
            }
        }
        return COMMITTED;
    }

    /**
     * CASes a backup after the first, which took the word: a failed CAS is left alone (that backup already holds
     * the word, helped there, or a later one), except when it found the replaced word frozen ({@link
     * FrozenReplica}): then it waits for the freeze to lift and CASes again, or gives up with {@link Status#TIMEOUT}.
     */
    private int casLater(final LaneRequests backup, final long slotOffset, final long expected, final long swap)
    {
        long start = 0L;
        for (int waits = 0; ; waits++)
        {
            trips++;
            final int rc = backup.replicaCas(slotOffset, expected, swap);
            backup.chargedToPrimary();
            if (rc != Status.OK || !FrozenReplica.holdsFrozen(backup.casResult(), expected))
            {
                return rc;
            }
            start = waits == 0 ? System.nanoTime() : start;
            if (!FrozenReplica.pause(start, waits))
            {
                return Status.TIMEOUT;
            }
        }
    }

    /** Pushes {@code word}, which won the first backup, down the rest of the backups; returns {@link #LOST}. */
    private int help(final long slotOffset, final long expected, final long word)
    {
        for (int i = 1; i < backupCount; i++)
        {
            trips++;
            final int rc = backups[i].replicaCas(slotOffset, expected, word);
            backups[i].chargedToPrimary();
            if (rc != Status.OK)
            {
                return rc;
            }
        }
        return LOST;
    }

    /**
     * The primary refused to finish {@code word} (its writer is gone): puts every backup that holds it back
     * to {@code expected}, last backup first, so that no backup is ever behind one after it. Returns a
     * {@link Status}.
     */
    int revert(final long slotOffset, final long word, final long expected)
    {
        for (int i = backupCount - 1; i >= 0; i--)
        {
            trips++;
            final int rc = backups[i].replicaCas(slotOffset, word, expected);
            backups[i].chargedToPrimary();
            if (rc != Status.OK)
            {
                return rc;
            }
        }
        return Status.OK;
    }
}
