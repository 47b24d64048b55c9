package io.rdmakv.verbs.resource;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The life of one verbs object (device context, protection domain, memory region, completion queue,
 * queue pair), written once for every provider: it is open until {@link #close()}, refuses control-path
 * use afterwards, closes once, refuses to close while objects created from it are still open, and on
 * closing lets its parents forget it.
 *
 * <p>Ownership follows the C dependency graph. A child names its parents when it is constructed (a
 * queue pair: its protection domain and completion queues); a parent {@link #adopt adopts} a child once
 * the child exists; from then on the parent's {@link #close()} throws {@link VerbsException} with
 * {@link Errno#EBUSY} until the child closed.
 *
 * <p>{@link #close()} runs in this order:
 * <ol>
 *   <li>holding this object's monitor: return if already closed; refuse while children are open
 *       ({@link #openChildrenMessage()}); mark closed; {@link #release()} what the object holds (the
 *       native destroy call), which returns 0 or an errno;</li>
 *   <li>without the monitor: {@link #afterRelease()} (joining threads, leaving provider tables), then
 *       each parent forgets this object;</li>
 *   <li>if {@link #release()} failed, throw a {@link VerbsException} naming the close call, the errno and
 *       {@link #resourceName()}. The object stays closed: a failed destroy is not retried.</li>
 * </ol>
 *
 * <p>The closed flag is one volatile field, written once. {@link #isClosed()} is what a data-path open
 * check reads (a plain load on x86, no lock, no allocation); {@link #ensureOpen} is the control-path
 * check that throws. Children are tracked under the parent's monitor, on the control path only.
 */
public abstract class VerbsResource implements AutoCloseable
{
    private static final VerbsResource[] NO_PARENTS = new VerbsResource[0];

    private final String closeCall;
    private final VerbsResource[] parents;
    private final Set<VerbsResource> children = new LinkedHashSet<>();
    private volatile boolean closed;

    /**
     * @param closeCall the verb that destroys the object ({@code ibv_dealloc_pd}, ...): named by the
     *                  exceptions {@link #close()} throws
     * @param parents   the objects this one was created from; duplicates (a queue pair whose send and
     *                  receive completion queue are one) are fine
     */
    protected VerbsResource(final String closeCall, final VerbsResource... parents)
    {
        this.closeCall = closeCall;
        this.parents = parents.length == 0 ? NO_PARENTS : parents.clone();
    }

    /** True once {@link #close()} has begun: the data path's open check. */
    public final boolean isClosed()
    {
        return closed;
    }

    /**
     * The object as messages name it: {@code "device rxe0"}, {@code "queue pair 17 on rxe0"}. Used by
     * {@link #ensureOpen} ({@code "<name> is closed"}) and by the exception of a failed {@link #release()}.
     */
    protected abstract String resourceName();

    /**
     * Frees what the object holds; called once, holding its monitor, right after it was marked closed.
     *
     * @return 0, or the errno of the native call that failed (the object counts as closed regardless)
     */
    protected abstract int release();

    /**
     * Work that must follow {@link #release()} but must not hold this object's monitor (joining a thread,
     * leaving a provider-wide table); runs before the parents forget this object. Default: nothing.
     */
    protected void afterRelease()
    {
    }

    /** The errno {@link #ensureOpen} reports; {@link Errno#EINVAL} unless a provider says otherwise. */
    protected int closedErrno()
    {
        return Errno.EINVAL;
    }

    /**
     * Why {@link #close()} refuses while children are open (the {@link VerbsException} adds the call and
     * {@code EBUSY}). Parents override it to count their children by kind with {@link #openChildren}.
     */
    protected String openChildrenMessage()
    {
        return resourceName() + " still has " + children.size() + " object(s) open; close them first";
    }

    /** Throws the {@link VerbsException} of {@code call} on a closed object ({@code "<name> is closed"}). */
    protected final void ensureOpen(final String call)
    {
        if (closed)
        {
            throw new VerbsException(call, closedErrno(), resourceName() + " is closed");
        }
    }

    /**
     * Records {@code child}, which must name this object among its parents, as open: this object now
     * refuses to close until the child closed. Adopting twice is adopting once.
     *
     * @return {@code child}
     */
    protected final <T extends VerbsResource> T adopt(final T child)
    {
        if (!((VerbsResource)child).isChildOf(this))
        {
            throw new IllegalArgumentException(child + " does not name " + this + " as its parent");
        }
        synchronized (this)
        {
            children.add(child);
        }
        return child;
    }

    /** The open children that are a {@code kind}. */
    protected final synchronized int openChildren(final Class<? extends VerbsResource> kind)
    {
        int n = 0;
        for (final VerbsResource child : children)
        {
            if (kind.isInstance(child))
            {
                n++;
            }
        }
        return n;
    }

    /** Idempotent; throws {@link VerbsException} ({@code EBUSY}) while children are open. */
    @Override
    public void close()
    {
        final int errno;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            if (!children.isEmpty())
            {
                throw new VerbsException(closeCall, Errno.EBUSY, openChildrenMessage());
            }
            closed = true;
            errno = release();
        }
        afterRelease();
        for (final VerbsResource parent : parents)
        {
            parent.forget(this);
        }
        if (errno != 0)
        {
            throw new VerbsException(closeCall, errno, resourceName());
        }
    }

    private boolean isChildOf(final VerbsResource parent)
    {
        for (final VerbsResource p : parents)
        {
            if (p == parent)
            {
                return true;
            }
        }
        return false;
    }

    private synchronized void forget(final VerbsResource child)
    {
        children.remove(child);
    }
}
