package io.rdmakv.server.control;

import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.space.IndexAtomics;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Step (b) of a partition freeze on a primary (docs/growth.md §7, "Freezing A, in chain order"): once the first
 * backup's slots are frozen, each slot's <b>decided</b> word {@code d} (what the first backup held) is fixed. Where
 * {@code d} differs from this node's word, a writer is between its first backup and this node, and the freezer
 * settles the slot on:
 * <ul>
 *   <li>{@code d} (<b>finish</b>) when {@link FinishRule} says its writer could still finish it, or when {@code d} is
 *       empty (a DELETE: a writer finishes a DELETE it finds on the first backup without asking, there is no block
 *       to check), or when this node's word became {@code d} meanwhile (the writer's own CAS);</li>
 *   <li>this node's word (<b>undo</b>) otherwise, as a client refused by HELP and the backup sweep put back.</li>
 * </ul>
 * The rule reads the allocator, so the decisions run as one command on the control agent's thread, and the
 * freezer's thread waits for them (bounded).
 */
public final class FreezeDecisions
{
    private static final long TIMEOUT_SECONDS = 30;

    private final FinishRule rule;
    private final IndexAtomics own;
    private final Consumer<Runnable> agent;

    /**
     * @param own   this node's index words
     * @param agent runs a command on the control agent's thread
     */
    public FreezeDecisions(final FinishRule rule, final IndexAtomics own, final Consumer<Runnable> agent)
    {
        this.rule = rule;
        this.own = own;
        this.agent = agent;
    }

    /**
     * Decides {@code count} slots: slot {@code i} at region offset {@code slots[i]}, in group {@code groups[i]},
     * decided word {@code decided[i]} (without MOVING). Fills {@code settled[i]} with the word (without MOVING) every
     * replica must hold. Blocking; not on the agent's thread.
     *
     * @return how many were finished (settled on the decided word); the rest were undone
     * @throws IllegalStateException when the agent did not answer in time (closing, stuck) or failed
     */
    public int decide(final long[] slots, final long[] groups, final long[] decided, final long[] settled,
        final int count)
    {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        agent.accept(() ->
        {
            try
            {
                done.complete(decideNow(slots, groups, decided, settled, count));
            }
            catch (final RuntimeException e)
            {
                done.completeExceptionally(e);
            }
        });
        try
        {
            return done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the control thread decided frozen slots", e);
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("the control thread did not decide " + count + " frozen slot(s): " + e, e);
        }
    }

    /** {@link #decide} on the agent's thread. */
    int decideNow(final long[] slots, final long[] groups, final long[] decided, final long[] settled,
        final int count)
    {
        int finished = 0;
        for (int i = 0; i < count; i++)
        {
            final long d = decided[i];
            final long mine = SlotWord.withoutMoving(own.get(slots[i]));
            final boolean finish = mine == d || !SlotWord.namesBlock(d) || rule.mayFinish(d, groups[i]);
            settled[i] = finish ? d : mine;
            if (finish)
            {
                finished++;
            }
        }
        return finished;
    }
}
