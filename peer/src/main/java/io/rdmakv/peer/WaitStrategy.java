package io.rdmakv.peer;

import io.rdmakv.verbs.util.AdaptiveSpin;

import java.util.Locale;

/**
 * How a client thread waits for the completion of its round trip ({@link KvClientConfig#withWaitStrategy}).
 *
 * <ul>
 *   <li>{@link #BUSY_SPIN}: polls the completion queue until the completion or the timeout. Lowest latency
 *       when every waiting thread has a core of its own; burns the core, and starves the node and the JIT
 *       when threads outnumber cores.</li>
 *   <li>{@link #ADAPTIVE} (the default): spins for about one of the lane's recent round trips (a running
 *       estimate, capped at {@value #ADAPTIVE_SPIN_CAP_MICROS} us; no spin at all while more lanes wait than
 *       the machine has cores), then blocks in the completion queue's event wait (epoll on {@code tcp},
 *       the completion channel on {@code ibverbs}).</li>
 *   <li>{@link #BLOCKING}: blocks in the event wait at once. Least CPU; a wake-up per round trip.</li>
 * </ul>
 */
public enum WaitStrategy
{
    BUSY_SPIN("busy-spin"),
    ADAPTIVE("adaptive"),
    BLOCKING("blocking");

    /** The longest an {@link #ADAPTIVE} wait spins before it blocks, in microseconds. */
    public static final long ADAPTIVE_SPIN_CAP_MICROS = AdaptiveSpin.SPIN_CAP_MICROS;

    private final String label;

    WaitStrategy(final String label)
    {
        this.label = label;
    }

    /** The name used in configuration ({@code busy-spin}, {@code adaptive}, {@code blocking}). */
    public String label()
    {
        return label;
    }

    /** Parses a configuration value (case-insensitive); a clear error names the choices. */
    public static WaitStrategy parse(final String text)
    {
        final String wanted = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (final WaitStrategy strategy : values())
        {
            if (strategy.label.equals(wanted))
            {
                return strategy;
            }
        }
        throw new IllegalArgumentException(
            "unknown wait strategy '" + text + "': expected busy-spin, adaptive or blocking");
    }

    @Override
    public String toString()
    {
        return label;
    }
}
