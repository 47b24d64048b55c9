package io.rdmakv.server.control;

import org.agrona.ErrorHandler;

/**
 * The control agent runner's error handler: counts every unexpected exception under one counter and logs
 * it with its stack trace. The runner calls it on the agent's thread, so the count keeps a single writer;
 * the runner keeps the loop going after anything but an {@link Error}: one bad request or session must not
 * stop the control plane of every client.
 */
public final class CountingErrorHandler implements ErrorHandler
{
    private static final System.Logger LOG = System.getLogger(CountingErrorHandler.class.getName());

    private final ServerCounters counters;
    private final ServerCounter counter;
    private final String who;

    /**
     * @param who names the loop in the log line, e.g. {@code control agent}
     */
    public CountingErrorHandler(final ServerCounters counters, final ServerCounter counter, final String who)
    {
        this.counters = counters;
        this.counter = counter;
        this.who = who;
    }

    @Override
    public void onError(final Throwable throwable)
    {
        counters.increment(counter);
        LOG.log(System.Logger.Level.ERROR, who + ": " + throwable, throwable);
    }
}
