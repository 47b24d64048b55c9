package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.map.LoadReport;
import io.rdmakv.server.space.SegmentLoads;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Tells the coordinator which of this node's index segments are at or above {@link SegmentLoads#GROWTH_THRESHOLD}
 * (docs/growth.md §11, "Trigger"): {@code load/<id>} ({@link LoadReport}) is written when the set of such partitions
 * changes (a partition first crosses, or one leaves it), at most one write or delete per {@link #WRITE_GAP_NANOS}, and again every
 * {@link #REFRESH_NANOS} while any is over; it is deleted when none is. It looks at the census's last count
 * ({@link MemberNode#segmentLoads}) every {@link #TICK_MILLIS}, on one thread ({@link #tick}); a write that fails is
 * tried again at the next tick.
 */
public final class LoadReporter
{
    /** How often the census's count is looked at. */
    public static final long TICK_MILLIS = 250;
    /** The shortest time between two writes. */
    static final long WRITE_GAP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often a report is written again while a partition is over. */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final System.Logger LOG = System.getLogger(LoadReporter.class.getName());

    /** Where the report goes: {@code load/<id>} ({@code ZkMembership}), or a test's list. */
    public interface Sink
    {
        void write(LoadReport report) throws Exception;

        void delete() throws Exception;
    }

    private final int nodeId;
    private final Supplier<SegmentLoads> loads;
    private final Sink sink;
    /** The partitions of the report written last; null when none is written. */
    private Set<Integer> written;
    /** When the znode was last written or deleted. */
    private long writtenAt = Long.MIN_VALUE / 2;

    public LoadReporter(final int nodeId, final Supplier<SegmentLoads> loads, final Sink sink)
    {
        this.nodeId = nodeId;
        this.loads = loads;
        this.sink = sink;
    }

    /** One look at the census at {@code nowNanos}: writes, deletes or does nothing, as the class says. */
    public void tick(final long nowNanos)
    {
        final SegmentLoads load = loads.get();
        final List<LoadReport.Over> over = new ArrayList<>();
        final Set<Integer> partitions = new TreeSet<>();
        for (int i = 0; i < load.size(); i++)
        {
            if (load.over(i))
            {
                over.add(new LoadReport.Over(load.partition(i), load.segment(i), load.used(i)));
                partitions.add(load.partition(i));
            }
        }
        try
        {
            if (over.isEmpty())
            {
                if (written != null)
                {
                    sink.delete();
                    written = null;
                    writtenAt = nowNanos;
                }
                return;
            }
            final boolean changed = !partitions.equals(written);
            final long since = nowNanos - writtenAt;
            if (changed && since >= WRITE_GAP_NANOS || since >= REFRESH_NANOS)
            {
                final LoadReport report = new LoadReport(nodeId, load.epoch(), over);
                sink.write(report);
                if (changed)
                {
                    LOG.log(System.Logger.Level.INFO, "node " + nodeId + ": index segments at or above " +
                        (int)(SegmentLoads.GROWTH_THRESHOLD * 100) + "% reported: " + over);
                }
                written = partitions;
                writtenAt = nowNanos;
            }
        }
        catch (final Exception e)
        {
            LOG.log(System.Logger.Level.WARNING, "node " + nodeId + ": cannot write its load report " + over + ": " +
                e + " (tried again in " + TICK_MILLIS + " ms)");
        }
    }
}
