package io.rdmakv.server;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.region.HugePages;
import io.rdmakv.verbs.DeviceAttributes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The facts a node prints at start, so that a misconfigured host shows at a glance: transport and device
 * (with the device's atomic capability and port state), the locked-memory limit, the region and its
 * huge pages. Each fact is one line beginning "kvserver: self-check:"; a problem adds a WARNING line.
 */
final class SelfCheck
{
    static final Path LIMITS = Path.of("/proc/self/limits");
    private static final String PREFIX = "kvserver: self-check: ";

    private SelfCheck()
    {
    }

    /** The lines for a started node. */
    static List<String> report(final ServerConfig config, final KvServer server)
    {
        final List<String> lines = new ArrayList<>();
        final DeviceAttributes device = server.deviceAttributes();
        lines.add(PREFIX + "transport " + server.transport() + " (asked for " + config.transport() + "), device " +
            server.deviceName() + (config.transport().equals("tcp") ? "" : " port " + config.devicePort()) +
            ": link layer " + device.linkLayer() + ", port " + device.portState() + ", atomics " +
            device.atomicCapability() + " (the node changes lock words with " + (
            "loopback".equals(server.indexAtomics()) ? "RDMA CAS through a loopback queue pair)" : "CPU CAS)"));
        lines.add(PREFIX + "write path " + (server.nodeAssistedWrites() ?
            "node-assisted: clients WRITE blocks and READ one-sided, and send each index CAS to the node (SLOT_CAS)" :
            "one-sided: clients WRITE blocks and CAS the index with RDMA atomics") + " (--write-path " +
            server.config().writePath().label() + ")");
        if ("NONE".equals(device.atomicCapability()))
        {
            lines.add(PREFIX + "WARNING: device " + server.deviceName() + " has no remote atomics: every index CAS " +
                "is a round trip through the node's control thread (the node-assisted write path)");
        }
        if (!"ACTIVE".equals(device.portState()))
        {
            lines.add(PREFIX + "WARNING: port " + config.devicePort() + " of " + server.deviceName() + " is " +
                device.portState() + ", not ACTIVE");
        }
        lines.add(PREFIX + "memlock " + memlock(read(LIMITS)) + ("ibverbs".equals(server.transport()) ?
            " (registering pins the region: it needs at least " + server.geometry().regionLength() + " bytes)" :
            " (not needed by the tcp transport)"));
        final RegionGeometry g = server.geometry();
        lines.add(PREFIX + "region " + g.regionLength() + " bytes: index " + g.headerAndIndexLength() +
            " bytes (" + g.slotCount() + " slots), data area " + g.dataLength() + " bytes in chunks of " +
            g.chunkSize());
        lines.add(PREFIX + "huge pages " + hugePages(config.hugePages(), server.hugePagesAdvised()) +
            "; transparent huge pages: " + thpMode(read(HugePages.THP_ENABLED)));
        return lines;
    }

    static String hugePages(final boolean requested, final boolean advised)
    {
        if (!requested)
        {
            return "not requested (--huge-pages)";
        }
        return advised ? "requested: region 2 MiB aligned, madvise(MADV_HUGEPAGE) accepted" :
            "requested but madvise(MADV_HUGEPAGE) was refused: the region uses 4 KiB pages";
    }

    /** "unlimited", or "65536 bytes (hard limit ...)", from the text of /proc/self/limits. */
    static String memlock(final String limits)
    {
        if (limits == null)
        {
            return "limit unknown (no /proc/self/limits)";
        }
        for (final String line : limits.split("\n"))
        {
            if (line.startsWith("Max locked memory"))
            {
                final String[] f = line.substring("Max locked memory".length()).trim().split("\\s+");
                if (f.length >= 2)
                {
                    return "limit " + f[0] + (f[0].equals("unlimited") ? "" : " bytes") + " (hard limit " + f[1] +
                        (f[1].equals("unlimited") ? "" : " bytes") + ")";
                }
            }
        }
        return "limit unknown";
    }

    /** The bracketed mode of "always [madvise] never", or "unavailable". */
    static String thpMode(final String enabled)
    {
        if (enabled == null)
        {
            return "unavailable on this kernel";
        }
        final int open = enabled.indexOf('[');
        final int close = enabled.indexOf(']', open + 1);
        return open >= 0 && close > open ? enabled.substring(open + 1, close) : enabled.trim();
    }

    private static String read(final Path path)
    {
        try
        {
            return Files.readString(path);
        }
        catch (final IOException | RuntimeException e)
        {
            return null;
        }
    }
}
