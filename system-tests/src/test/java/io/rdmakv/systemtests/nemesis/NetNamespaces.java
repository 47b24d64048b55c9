package io.rdmakv.systemtests.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Linux network namespace per process, each with one address from 198.18.0.0/24 (the benchmarking range) on
 * a veth whose other end is in a bridge inside a hub namespace. Nothing routes out: the members have no default
 * route, and the only link to the root namespace is the control veth {@value #CONTROL_LINK} (address
 * {@value #CONTROL_ADDRESS}), from which this JVM reads cluster maps and runs final reads. Every name starts with
 * {@value #PREFIX}; {@link #cleanUp()} removes all of them (also what a crashed run left) and kills the processes
 * inside.
 */
final class NetNamespaces implements AutoCloseable
{
    static final String PREFIX = "rkvn-";
    static final String HUB = PREFIX + "hub";
    static final String CONTROL_LINK = PREFIX + "ctl";
    static final String CONTROL_ADDRESS = "198.18.0.2";
    static final String LOCK_FILE = "/tmp/rkvn-nemesis.lock";

    private static final java.util.concurrent.atomic.AtomicBoolean HOOK = new java.util.concurrent.atomic.AtomicBoolean();

    /** Member name (e.g. "zk0", "n1", "c0") to its address. */
    private final Map<String, String> members = new LinkedHashMap<>();

    private final FileLock lock;

    private NetNamespaces(final FileLock lock)
    {
        this.lock = lock;
    }

    /** Why the suite cannot run here, or null when it can: it needs root, {@code ip netns} and {@code nft}. */
    static String unavailableReason()
    {
        try
        {
            final String uid = Sh.tryRun("id", "-u").output();
            if (!"0".equals(uid))
            {
                return "the nemesis suite needs root for network namespaces and nftables (running as uid " + uid + ")";
            }
            if (Sh.tryRun("ip", "netns", "list").rc() != 0)
            {
                return "'ip netns list' fails here: no network namespaces";
            }
            if (Sh.tryRun("nft", "--version").rc() != 0)
            {
                return "nft (nftables) is not installed: run scripts/setup.sh";
            }
        }
        catch (final RuntimeException e)
        {
            return "cannot run ip or nft (scripts/setup.sh installs iproute2 and nftables): " + e.getMessage();
        }
        return null;
    }

    /** Creates the hub, its bridge and the control link (after removing what an earlier run left). */
    static NetNamespaces create()
    {
        final FileLock lock = lock();
        cleanUp();
        if (HOOK.compareAndSet(false, true))
        {
            // an interrupted run (Ctrl-C, SIGTERM) must not leave processes and namespaces behind
            Runtime.getRuntime().addShutdownHook(new Thread(NetNamespaces::cleanUp, "nemesis-clean-up"));
        }
        final NetNamespaces ns = new NetNamespaces(lock);
        try
        {
            Sh.run("ip", "netns", "add", HUB);
            Sh.run("ip", "-n", HUB, "link", "set", "lo", "up");
            Sh.run("ip", "-n", HUB, "link", "add", "br0", "type", "bridge");
            Sh.run("ip", "-n", HUB, "link", "set", "br0", "up");
            Sh.run("ip", "link", "add", CONTROL_LINK, "type", "veth", "peer", "name", "v-ctl", "netns", HUB);
            Sh.run("ip", "-n", HUB, "link", "set", "v-ctl", "master", "br0", "up");
            Sh.run("ip", "addr", "add", CONTROL_ADDRESS + "/24", "dev", CONTROL_LINK);
            Sh.run("ip", "link", "set", CONTROL_LINK, "up");
            return ns;
        }
        catch (final RuntimeException e)
        {
            ns.close();
            throw e;
        }
    }

    /** Takes {@value #LOCK_FILE}: a second run on the machine would remove this one's namespaces. */
    private static FileLock lock()
    {
        try
        {
            final FileChannel channel = FileChannel.open(Path.of(LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
            final FileLock lock = channel.tryLock();
            if (lock == null)
            {
                channel.close();
                throw new IllegalStateException("another nemesis run holds " + LOCK_FILE + "; one run per machine");
            }
            return lock;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot lock " + LOCK_FILE, e);
        }
    }

    /** Adds member {@code name} (at most 9 characters) at 198.18.0.{@code host}; returns its address. */
    String add(final String name, final int host)
    {
        final String netns = PREFIX + name;
        final String address = "198.18.0." + host;
        Sh.run("ip", "netns", "add", netns);
        Sh.run("ip", "-n", HUB, "link", "add", "v-" + name, "type", "veth", "peer", "name", "eth0", "netns", netns);
        Sh.run("ip", "-n", HUB, "link", "set", "v-" + name, "master", "br0", "up");
        Sh.run("ip", "-n", netns, "addr", "add", address + "/24", "dev", "eth0");
        Sh.run("ip", "-n", netns, "link", "set", "eth0", "up");
        Sh.run("ip", "-n", netns, "link", "set", "lo", "up");
        members.put(name, address);
        return address;
    }

    String address(final String name)
    {
        final String a = members.get(name);
        if (a == null)
        {
            throw new IllegalArgumentException("no namespace member " + name + " (have " + members.keySet() + ")");
        }
        return a;
    }

    /** The command prefix that runs a program inside member {@code name}'s namespace. */
    static List<String> exec(final String name)
    {
        return List.of("ip", "netns", "exec", PREFIX + name);
    }

    /** Kills every process in a {@value #PREFIX} namespace and deletes those namespaces and the control link. */
    static void cleanUp()
    {
        final List<String> stale = new ArrayList<>();
        for (final String line : Sh.run("ip", "netns", "list").split("\n"))
        {
            final String name = line.strip().split("\\s+")[0];
            if (name.startsWith(PREFIX))
            {
                stale.add(name);
            }
        }
        for (final String ns : stale)
        {
            for (final String pid : Sh.tryRun("ip", "netns", "pids", ns).output().split("\\s+"))
            {
                if (!pid.isBlank())
                {
                    Sh.tryRun("kill", "-9", pid);
                }
            }
        }
        for (final String ns : stale)
        {
            Sh.tryRun("ip", "netns", "del", ns);
        }
        if (Sh.tryRun("ip", "link", "show", CONTROL_LINK).rc() == 0)
        {
            Sh.tryRun("ip", "link", "del", CONTROL_LINK);
        }
    }

    @Override
    public void close()
    {
        try
        {
            cleanUp();
        }
        finally
        {
            try
            {
                lock.channel().close();
            }
            catch (final IOException e)
            {
                // the lock goes with the process anyway
            }
        }
    }
}
