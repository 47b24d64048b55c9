package io.rdmakv.server.control;

import io.rdmakv.server.space.DepartureScan;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The one walk of the index that every departure batch waiting for a scan shares, {@link
 * ControlAgent#DEPARTURE_GROUPS_PER_CYCLE} groups per duty cycle, so departures cost the control thread a bounded
 * slice of each cycle however fast sessions come and go, and requests of other sessions are served between slices.
 * The walk goes round the index; a batch joins where it is and is done once it is back there (every group visited
 * after it joined: {@link DepartureScan}), so batches that arrive while it runs are merged into it instead of
 * each walking the whole index. Agent thread only.
 */
final class DepartureWalk
{
    private final DepartureScan scan;
    private final long groups;
    private final List<Job> jobs = new ArrayList<>();
    private long cursor;

    private static final class Job
    {
        final List<Long> owners;
        final Consumer<Map<Long, IndexScanner.Departure>> then;
        long left;

        Job(final List<Long> owners, final Consumer<Map<Long, IndexScanner.Departure>> then, final long left)
        {
            this.owners = owners;
            this.then = then;
            this.left = left;
        }
    }

    DepartureWalk(final IndexScanner scanner)
    {
        this.scan = scanner.departureScan();
        this.groups = scanner.groupCount();
    }

    /**
     * Scans for {@code grantsByOwner} (departed sessions' ids and what they held; see {@link
     * IndexScanner#scanDepartures}) and hands what was found to {@code then}, on the agent's thread, once the walk
     * has been round the index for them.
     */
    void submit(final Map<Long, List<Extent>> grantsByOwner, final Consumer<Map<Long, IndexScanner.Departure>> then)
    {
        scan.add(grantsByOwner);
        jobs.add(new Job(new ArrayList<>(grantsByOwner.keySet()), then, groups));
    }

    /** Whether a batch waits for the walk. */
    boolean busy()
    {
        return !jobs.isEmpty();
    }

    /** Walks at most {@code budget} groups on; hands every batch now done its findings. Returns the groups walked. */
    int step(final long budget)
    {
        if (jobs.isEmpty())
        {
            return 0;
        }
        long walked = 0;
        while (walked < budget && !jobs.isEmpty())
        {
            final long to = Math.min(groups, cursor + Math.min(budget - walked, leastLeft()));
            scan.visit(cursor, to);
            final long n = to - cursor;
            walked += n;
            cursor = to == groups ? 0 : to;
            finish(n);
        }
        return (int)walked;
    }

    private long leastLeft()
    {
        long least = Long.MAX_VALUE;
        for (final Job job : jobs)
        {
            least = Math.min(least, job.left);
        }
        return least;
    }

    /** Counts {@code visited} groups to every batch and hands those done their findings. */
    private void finish(final long visited)
    {
        final List<Job> done = new ArrayList<>();
        for (final Job job : jobs)
        {
            job.left -= visited;
            if (job.left <= 0)
            {
                done.add(job);
            }
        }
        jobs.removeAll(done);
        for (final Job job : done)
        {
            job.then.accept(scan.remove(job.owners));
        }
    }
}
