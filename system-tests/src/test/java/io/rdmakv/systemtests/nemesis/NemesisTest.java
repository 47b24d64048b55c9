package io.rdmakv.systemtests.nemesis;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The short nemesis run for CI: one round each of zk-cut, stop, kill and one-way-in, each on fresh keys, two client
 * processes of four threads on five keys, every process in its own network namespace. Every key must be
 * linearizable and no acknowledged write lost. The report goes to target/nemesis. Skips itself without root,
 * {@code ip netns} or {@code nft}, saying why.
 */
class NemesisTest
{
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyKeyStaysLinearizableUnderPartitionsPausesAndKills() throws Exception
    {
        final String unavailable = NetNamespaces.unavailableReason();
        Assumptions.assumeTrue(unavailable == null, () -> "nemesis suite skipped: " + unavailable);
        final NemesisReport report = new NemesisRun(new NemesisRun.Settings(
            List.of(Fault.ZK_CUT, Fault.STOP, Fault.KILL, Fault.ONE_WAY_IN), 1, 0, 2, 4, 5,
            Path.of("target", "nemesis"))).run();
        System.out.println(report.markdown());
        assertNull(report.aborted(), "the nemesis run did not finish");
        assertEquals(0, report.violations(), () -> "keys not linearizable; see target/nemesis/report.md\n" + report.markdown());
        assertEquals(0, report.lostWrites(), () -> "acknowledged writes lost; see target/nemesis/report.md\n" + report.markdown());
    }
}
