package io.rdmakv.common;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Log lines that can repeat (a failing accept, a flood of wrong tokens) at most once per interval per key:
 * the first is written at once, the ones in between are counted and the next line says how many there were.
 */
public final class RateLimitedLog
{
    private final System.Logger logger;
    private final long intervalNanos;
    private final Map<String, long[]> state = new ConcurrentHashMap<>();

    public RateLimitedLog(final System.Logger logger, final long interval, final TimeUnit unit)
    {
        this.logger = logger;
        this.intervalNanos = unit.toNanos(interval);
        // The JDK's log formatter reads the time-zone database on its first line; with file descriptors
        // exhausted (one of the moments this log is for) it could not, and the logging would throw.
        java.time.ZoneId.systemDefault().getRules();
    }

    /**
     * Logs {@code message} under {@code key} unless a line of that key was written less than an interval ago.
     * Never throws: a log that cannot be written is skipped.
     */
    public void log(final System.Logger.Level level, final String key, final String message)
    {
        final long now = System.nanoTime();
        final long[] s = state.computeIfAbsent(key, k -> new long[] {now - intervalNanos - 1, 0});
        final long suppressed;
        synchronized (s)
        {
            if (now - s[0] <= intervalNanos)
            {
                s[1]++;
                return;
            }
            suppressed = s[1];
            s[0] = now;
            s[1] = 0;
        }
        try
        {
            logger.log(level, suppressed == 0 ? message : message + " (and " + suppressed + " more like it since " +
                "the last report)");
        }
        catch (final RuntimeException | Error e)
        {
            // the log cannot be written now (resources exhausted): the caller must carry on regardless
        }
        if (state.size() > 10_000)
        {
            state.clear();
        }
    }
}
