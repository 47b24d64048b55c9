package io.rdmakv.server.cluster;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Fences the node the moment it stops being current ({@link NodeCurrency}): checks every watch tick and, when
 * currency lapses, hands the reason to {@code fence} (every session to ERR, at once); HELLOs are refused
 * meanwhile by whoever reads {@link NodeCurrency#current()}. A daemon thread of its own, so that neither
 * membership events nor the coordinator can delay it.
 */
final class CurrencyWatch implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(CurrencyWatch.class.getName());

    private final NodeCurrency currency;
    private final Consumer<String> fence;
    private final Thread thread;
    private volatile boolean closed;

    CurrencyWatch(final NodeCurrency currency, final Consumer<String> fence, final int nodeId)
    {
        this.currency = currency;
        this.fence = fence;
        this.thread = Thread.ofPlatform().daemon().name("rdmakv-currency-" + nodeId).unstarted(this::watch);
        thread.start();
    }

    private void watch()
    {
        boolean was = false;
        while (!closed)
        {
            final boolean now = currency.current();
            if (was && !now)
            {
                final String why = currency.why();
                LOG.log(System.Logger.Level.WARNING, "not current any more (" + why + "): fencing every session " +
                    "and refusing HELLO until it is");
                try
                {
                    fence.accept(why);
                }
                catch (final RuntimeException e)
                {
                    LOG.log(System.Logger.Level.ERROR, "fencing failed: " + e, e);
                }
            }
            else if (!was && now)
            {
                LOG.log(System.Logger.Level.INFO, "current: serving");
            }
            was = now;
            LockSupport.parkNanos(currency.bounds().watchTickNanos());
        }
    }

    @Override
    public void close()
    {
        closed = true;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
