package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each group's share of the partitions (docs/growth.md §12 "Shares and choice"), for rule 5: the groups that may
 * give or take partitions ({@code capacities}: those not lost, without copying nodes or a seal, with a known arena),
 * each with its capacity (its primary's index arena in bucket groups: the data-area census is not built, so the
 * arena stands for capacity), its target {@code P × capacity / Σ capacity} rounded by largest remainder (ties by
 * lower group id) so the targets add up to P, and its count (partitions it owns, plus those moving to it, minus
 * those moving away, batches before SWITCH; from SWITCH on a partition is owned by its target already). Groups left
 * out count as zero capacity and get no target; a group being drained (growth.md §12 "Drain") is in with capacity
 * 0, so target 0: it gives all it owns and takes nothing. Mutable only through {@link #move}, as a plan starts batches.
 */
final class Shares
{
    private final int partitions;
    private final long total;
    /** By group id, ascending: capacity, target and count of every group that may give or take. */
    private final Map<Integer, Long> capacity;
    private final Map<Integer, Integer> target = new TreeMap<>();
    private final Map<Integer, Integer> count = new TreeMap<>();

    /**
     * The shares in {@code map} of the groups in {@code capacities} (by group id, each at least 0: a group being
     * drained has capacity 0, so target 0).
     */
    Shares(final ClusterMap map, final Map<Integer, Long> capacities)
    {
        partitions = map.partitionCount();
        capacity = new TreeMap<>(capacities);
        total = capacity.values().stream().mapToLong(Long::longValue).sum();
        target.putAll(targets(partitions, capacity));
        for (final Integer g : capacity.keySet())
        {
            count.put(g, 0);
        }
        final int[] owners = map.partitionGroups();
        for (final int g : owners)
        {
            count.computeIfPresent(g, (k, n) -> n + 1);
        }
        for (final MoveBatch b : map.moves().batches())
        {
            if (b.phase().beforeSwitch())
            {
                count.computeIfPresent(b.target(), (k, n) -> n + b.size());
                count.computeIfPresent(b.source(), (k, n) -> n - b.size());
            }
        }
    }

    /**
     * The targets of groups with {@code capacities} (by id, each above 0) sharing {@code partitions}: each gets
     * floor(P × capacity / Σ capacity), and the partitions left over go one each to the largest remainders, ties
     * to the lower group id. Exact (P × capacity stays far below 2^63: P is at most 2^16, an arena at most 2^32).
     */
    static Map<Integer, Integer> targets(final int partitions, final Map<Integer, Long> capacities)
    {
        final Map<Integer, Integer> targets = new TreeMap<>();
        final long total = capacities.values().stream().mapToLong(Long::longValue).sum();
        if (total == 0)
        {
            return targets;
        }
        final Map<Integer, Long> remainders = new TreeMap<>();
        int given = 0;
        for (final Map.Entry<Integer, Long> e : capacities.entrySet())
        {
            final long share = (long) partitions * e.getValue();
            targets.put(e.getKey(), (int) (share / total));
            remainders.put(e.getKey(), share % total);
            given += (int) (share / total);
        }
        // a group of capacity 0 (being drained) gets no partition left over
        final List<Integer> byRemainder = new ArrayList<>(remainders.keySet().stream()
            .filter(g -> capacities.get(g) > 0).toList());
        // largest remainder first; the sort is stable, so equal remainders stay in ascending id order
        byRemainder.sort((a, b) -> Long.compare(remainders.get(b), remainders.get(a)));
        for (int i = 0; i < partitions - given; i++)
        {
            targets.merge(byRemainder.get(i), 1, Integer::sum);
        }
        return targets;
    }

    /** Whether some group may take partitions (capacity above 0): otherwise there are no targets to move toward. */
    boolean hasCapacity()
    {
        return total > 0;
    }

    /** The groups that may give or take, ascending. */
    List<Integer> groups()
    {
        return List.copyOf(capacity.keySet());
    }

    /** Group {@code g}'s target (it must be one of {@link #groups}). */
    int target(final int g)
    {
        return target.get(g);
    }

    /** Group {@code g}'s count now (it must be one of {@link #groups}). */
    int count(final int g)
    {
        return count.get(g);
    }

    /** How many partitions group {@code g} holds above its target (negative: below). */
    int over(final int g)
    {
        return count.get(g) - target.get(g);
    }

    /**
     * Whether every group is within one partition of its exact share {@code P × capacity / Σ capacity} (so at the
     * floor or the ceiling of it): nothing is worth moving. Against the rounded target, "within one" would stop at
     * counts 3, 4, 1 for targets 3, 3, 2; against the exact share 2.67 those are off by 1.33 and 1.67.
     */
    boolean balanced()
    {
        for (final Map.Entry<Integer, Long> e : capacity.entrySet())
        {
            final long off = (long) count.get(e.getKey()) * total - (long) partitions * e.getValue();
            if (Math.abs(off) >= total)
            {
                return false;
            }
        }
        return true;
    }

    /** Notes that {@code n} partitions start moving from {@code source} to {@code target}. */
    void move(final int source, final int target, final int n)
    {
        count.merge(source, -n, Integer::sum);
        count.merge(target, n, Integer::sum);
    }

    @Override
    public String toString()
    {
        final StringBuilder out = new StringBuilder();
        for (final Integer g : capacity.keySet())
        {
            out.append(out.isEmpty() ? "" : ", ").append("group ").append(g).append(' ').append(count.get(g))
                .append('/').append(target.get(g));
        }
        return out.toString();
    }
}
