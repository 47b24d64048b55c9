package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.Provider;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Which providers the conformance suite runs against.
 *
 * <ul>
 * <li>By default {@code tcp} and {@code ibverbs}. {@code tcp} must always work; {@code ibverbs} is
 * skipped, with {@link Provider#unavailableReason()} as the visible skip message, on a machine where it
 * cannot open a device.</li>
 * <li>{@code -Drdmakv.conformance.providers=ibverbs} (a comma list) replaces the list. A provider named
 * there is required: if it is unusable its tests fail with the reason instead of being skipped, so a
 * Soft-RoCE run whose device vanished cannot pass vacuously.</li>
 * <li>{@code -Drdmakv.conformance.device=rxe0} picks the device ({@link VerbsConfig#device()}).</li>
 * </ul>
 */
final class ConformanceProviders
{
    static final String PROVIDERS_PROPERTY = "rdmakv.conformance.providers";
    static final String DEVICE_PROPERTY = "rdmakv.conformance.device";
    static final List<String> DEFAULT = List.of(Providers.TCP, Providers.IBVERBS);

    private ConformanceProviders()
    {
    }

    /** The argument source of {@link ProviderTest}. */
    static Stream<String> names()
    {
        return requested().stream();
    }

    static List<String> requested()
    {
        final String list = System.getProperty(PROVIDERS_PROPERTY);
        return list == null || list.isBlank() ? DEFAULT : parse(list);
    }

    /** Splits a comma list, trimming blanks and dropping duplicates; an empty list is an error. */
    static List<String> parse(final String list)
    {
        final List<String> names = new ArrayList<>();
        for (final String part : list.split(","))
        {
            final String name = part.trim();
            if (!name.isEmpty() && !names.contains(name))
            {
                names.add(name);
            }
        }
        if (names.isEmpty())
        {
            throw new IllegalArgumentException(PROVIDERS_PROPERTY + " names no provider: '" + list + "'");
        }
        return List.copyOf(names);
    }

    /** True when an unusable {@code name} must fail the test rather than skip it. */
    static boolean required(final String name, final String explicitList)
    {
        return Providers.TCP.equals(name) || (explicitList != null && !explicitList.isBlank());
    }

    /**
     * Returns normally when the provider can open a device here; otherwise skips the calling test (with
     * the reason) or fails it, as the class comment says. An unknown name fails.
     */
    static void requireUsable(final String name)
    {
        final Provider provider = Providers.byName(name);
        final String reason = provider.unavailableReason();
        if (reason == null)
        {
            return;
        }
        final String message = "provider " + name + " is not usable here: " + reason;
        if (required(name, System.getProperty(PROVIDERS_PROPERTY)))
        {
            Assertions.fail(message + " (and it is required: tcp always is, and so is every provider named in -D" +
                PROVIDERS_PROPERTY + ")");
        }
        Assumptions.abort(message);
    }

    /** Opens a device of the named provider, the one way the suite does. */
    static Context open(final String name)
    {
        return Providers.open(name, config());
    }

    /** How the suite opens a device: {@link VerbsConfig#DEFAULT}, with the device of {@link #DEVICE_PROPERTY}. */
    static VerbsConfig config()
    {
        final String device = System.getProperty(DEVICE_PROPERTY);
        return device == null || device.isBlank() ? VerbsConfig.DEFAULT : VerbsConfig.DEFAULT.withDevice(device.trim());
    }
}
