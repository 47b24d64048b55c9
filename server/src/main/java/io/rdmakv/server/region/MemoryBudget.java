package io.rdmakv.server.region;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * Whether a region of the asked size can be had before it is touched: the region is zero-filled at start,
 * so a region larger than the memory cgroup allows (minus the JVM's heap) ends in a silent OOM kill, and
 * one larger than the memory available pushes the machine into swap or the OOM killer. Reads the cgroup
 * limit (v2 {@code memory.max}, v1 {@code memory.limit_in_bytes}) and {@code MemAvailable} from
 * {@code /proc/meminfo}; what it cannot read it does not hold against the node.
 */
public final class MemoryBudget
{
    private static final long UNLIMITED_V1 = 1L << 60;

    private final Path procRoot;
    private final Path cgroupRoot;

    public MemoryBudget(final Path procRoot, final Path cgroupRoot)
    {
        this.procRoot = procRoot;
        this.cgroupRoot = cgroupRoot;
    }

    /** This machine's budget ({@code /proc}, {@code /sys/fs/cgroup}). */
    public static MemoryBudget system()
    {
        return new MemoryBudget(Path.of("/proc"), Path.of("/sys/fs/cgroup"));
    }

    /**
     * Refuses a region of {@code regionBytes} beside a heap of up to {@code heapBytes}.
     *
     * @throws IllegalArgumentException saying which limit it exceeds, by how much, and the ways out
     */
    public void check(final long regionBytes, final long heapBytes)
    {
        final OptionalLong limit = cgroupLimit();
        if (limit.isPresent() && regionBytes + heapBytes > limit.getAsLong())
        {
            throw new IllegalArgumentException("--memory " + mib(regionBytes) + " plus the JVM heap (up to " +
                mib(heapBytes) + ") is more than this process's memory cgroup allows (" + mib(limit.getAsLong()) +
                "): lower --memory or raise the container's memory limit");
        }
        final OptionalLong available = memAvailable();
        if (available.isPresent() && regionBytes > available.getAsLong())
        {
            throw new IllegalArgumentException("--memory " + mib(regionBytes) + " is more than the memory available " +
                "on this machine (" + mib(available.getAsLong()) + " MemAvailable): lower --memory or free memory");
        }
    }

    /** The memory cgroup's limit in bytes, if there is one (v2 first, then v1). */
    OptionalLong cgroupLimit()
    {
        final String v2Path = cgroupPath("0::");
        if (v2Path != null)
        {
            final OptionalLong v2 = number(cgroupRoot.resolve(v2Path.substring(1)).resolve("memory.max"));
            if (v2.isPresent())
            {
                return v2;
            }
        }
        final String v1Path = cgroupPath(":memory:");
        if (v1Path != null)
        {
            final OptionalLong v1 = number(cgroupRoot.resolve("memory").resolve(v1Path.substring(1))
                .resolve("memory.limit_in_bytes"));
            if (v1.isPresent() && v1.getAsLong() < UNLIMITED_V1)
            {
                return v1;
            }
        }
        return OptionalLong.empty();
    }

    /** {@code MemAvailable} in bytes, if the kernel reports it. */
    OptionalLong memAvailable()
    {
        for (final String line : lines(procRoot.resolve("meminfo")))
        {
            if (line.startsWith("MemAvailable:"))
            {
                final String[] parts = line.trim().split("\\s+");
                try
                {
                    return OptionalLong.of(Long.parseLong(parts[1]) * 1024);
                }
                catch (final NumberFormatException | ArrayIndexOutOfBoundsException e)
                {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /**
     * The path of this process's cgroup from the {@code /proc/self/cgroup} line whose hierarchy part is
     * {@code marker} ("0::" for v2, ":memory:" for the v1 memory controller), starting with "/"; or null.
     */
    private String cgroupPath(final String marker)
    {
        for (final String line : lines(procRoot.resolve("self").resolve("cgroup")))
        {
            final int at = marker.startsWith(":") ? line.indexOf(marker) : line.startsWith(marker) ? 0 : -1;
            if (at >= 0 && line.length() > at + marker.length() && line.charAt(at + marker.length()) == '/')
            {
                return line.substring(at + marker.length());
            }
        }
        return null;
    }

    private static OptionalLong number(final Path file)
    {
        final List<String> lines = lines(file);
        if (lines.isEmpty())
        {
            return OptionalLong.empty();
        }
        try
        {
            return OptionalLong.of(Long.parseLong(lines.getFirst().trim()));
        }
        catch (final NumberFormatException e)
        {
            return OptionalLong.empty(); // "max": no limit
        }
    }

    private static List<String> lines(final Path file)
    {
        try
        {
            return Files.readAllLines(file);
        }
        catch (final IOException | RuntimeException e)
        {
            return List.of();
        }
    }

    private static String mib(final long bytes)
    {
        return (bytes >> 20) + " MiB";
    }
}
