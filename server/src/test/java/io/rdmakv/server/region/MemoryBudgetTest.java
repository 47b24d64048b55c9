package io.rdmakv.server.region;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The memory a node may ask for, against made-up /proc and cgroup trees of both cgroup versions. */
class MemoryBudgetTest
{
    private static final long GIB = 1L << 30;

    @TempDir
    Path root;

    private MemoryBudget budget(final String cgroupLine, final String availableKb) throws IOException
    {
        final Path proc = root.resolve("proc");
        Files.createDirectories(proc.resolve("self"));
        Files.writeString(proc.resolve("self").resolve("cgroup"), cgroupLine + "\n");
        Files.writeString(proc.resolve("meminfo"), "MemTotal:  32000000 kB\nMemAvailable:   " + availableKb + " kB\n");
        return new MemoryBudget(proc, root.resolve("cgroup"));
    }

    @Test
    void aRegionOverTheV2LimitIsRefusedNamingTheLimit() throws IOException
    {
        final MemoryBudget b = budget("0::/kubepods/node", "30000000");
        Files.createDirectories(root.resolve("cgroup/kubepods/node"));
        Files.writeString(root.resolve("cgroup/kubepods/node/memory.max"), (4 * GIB) + "\n");
        assertEquals(OptionalLong.of(4 * GIB), b.cgroupLimit());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.check(4 * GIB, GIB));
        assertTrue(e.getMessage().contains("memory cgroup allows (4096 MiB)"), e.getMessage());
        assertDoesNotThrow(() -> b.check(2 * GIB, GIB));
    }

    @Test
    void aV1LimitCountsAndItsUnlimitedValueDoesNot() throws IOException
    {
        final MemoryBudget b = budget("4:memory:/process_api/abc", "30000000");
        final Path dir = Files.createDirectories(root.resolve("cgroup/memory/process_api/abc"));
        Files.writeString(dir.resolve("memory.limit_in_bytes"), (2 * GIB) + "\n");
        assertThrows(IllegalArgumentException.class, () -> b.check(2 * GIB, 256L << 20));
        Files.writeString(dir.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        assertEquals(OptionalLong.empty(), b.cgroupLimit());
        assertDoesNotThrow(() -> b.check(2 * GIB, 256L << 20));
    }

    @Test
    void aV2MaxIsNoLimitButAvailableMemoryStillIs() throws IOException
    {
        final MemoryBudget b = budget("0::/", "1048576");
        Files.createDirectories(root.resolve("cgroup"));
        Files.writeString(root.resolve("cgroup/memory.max"), "max\n");
        assertEquals(OptionalLong.empty(), b.cgroupLimit());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.check(2 * GIB, 0));
        assertTrue(e.getMessage().contains("more than the memory available on this machine (1024 MiB"),
            e.getMessage());
        assertDoesNotThrow(() -> b.check(512L << 20, 0));
    }

    @Test
    void whatCannotBeReadIsNotHeldAgainstTheNode()
    {
        final MemoryBudget b = new MemoryBudget(root.resolve("nothing"), root.resolve("nothing-either"));
        assertDoesNotThrow(() -> b.check(1L << 50, GIB));
    }
}
