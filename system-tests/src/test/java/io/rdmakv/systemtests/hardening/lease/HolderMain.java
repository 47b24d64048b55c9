package io.rdmakv.systemtests.hardening.lease;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.verbs.WcStatus;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The client a lease test freezes: run in its own JVM, it holds what a client holds mid-insert. A real
 * {@link KvClient} (heartbeats from its janitor) PUTs a few keys, so its lane holds a grant; a raw session
 * (heartbeats of its own) takes space (ALLOC) and the insert lock of one group, and keeps them. It prints
 * {@code HELD <session id> <chunk offset> <chunk length>}, then obeys one stdin line at a time:
 * {@code PUT key} (prints {@code PUT-OK key} or {@code PUT-FAILED <exception>: <message>}), {@code RAW}
 * (an RDMA WRITE of {@link #PATTERN} into its chunk and a CAS of the lock, as a client that woke up would
 * finish its insert; prints {@code RAW <write status> <cas status>}), {@code EXIT}.
 *
 * <p>Arguments: {@code PORT TRANSPORT OP_TIMEOUT_MS LOCK_GROUP} (the transport and timeout of the parent,
 * whose system properties a child does not inherit).
 */
public final class HolderMain
{
    /** What {@code RAW} writes: 64 bytes no block of the store starts with. */
    public static final byte PATTERN = (byte)0xEE;
    public static final int PATTERN_LENGTH = 64;

    private HolderMain()
    {
    }

    public static byte[] value(final String key)
    {
        return ("value of " + key).repeat(20).getBytes(StandardCharsets.UTF_8);
    }

    public static void main(final String[] args) throws Exception
    {
        System.setProperty(LocalCluster.TRANSPORT_PROPERTY, args[1]);
        System.setProperty(LocalCluster.OP_TIMEOUT_PROPERTY, args[2]);
        final int port = Integer.parseInt(args[0]);
        final long group = Long.parseLong(args[3]);
        final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        // a cold child JVM under emulation: its first session over rdma_cm took longer than the default 5 s
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig("127.0.0.1:" + port)
            .withConnectTimeout(LocalCluster.CONNECT_TIMEOUT));
            RawSession raw = new RawSession(port))
        {
            for (int i = 0; i < 5; i++)
            {
                client.put(("held-" + i).getBytes(StandardCharsets.UTF_8), value("held-" + i));
            }
            final HelloOkMessage hello = raw.hello();
            if (raw.send(new AllocMessage(1, 4096)) != WcStatus.SUCCESS ||
                !(raw.receive() instanceof AllocOkMessage grant))
            {
                throw new IllegalStateException("no grant");
            }
            final long lock = hello.indexRegion().address() + hello.geometry().groupRegionOffset(group) +
                BucketDescriptor.INSERT_LOCK_OFFSET;
            if (raw.compareAndSwap(lock, hello.indexRegion().rkey(), 0, hello.sessionId()) != WcStatus.SUCCESS ||
                raw.scratch().get(ValueLayout.JAVA_LONG, 0) != 0)
            {
                throw new IllegalStateException("the lock of group " + group + " was not free");
            }
            out.println("HELD " + hello.sessionId() + " " + grant.chunkOffset() + " " + grant.chunkLength());
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !"EXIT".equals(line))
            {
                if (line.startsWith("PUT "))
                {
                    final String key = line.substring(4);
                    try
                    {
                        client.put(key.getBytes(StandardCharsets.UTF_8), value(key));
                        out.println("PUT-OK " + key);
                    }
                    catch (final RuntimeException e)
                    {
                        out.println("PUT-FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage());
                    }
                }
                else if ("RAW".equals(line))
                {
                    out.println("RAW " + rawWrite(raw, grant) + " " + rawLock(raw, lock, hello));
                }
            }
        }
    }

    private static String rawWrite(final RawSession raw, final AllocOkMessage grant)
    {
        final MemorySegment scratch = raw.scratch();
        final byte[] pattern = new byte[PATTERN_LENGTH];
        Arrays.fill(pattern, PATTERN);
        MemorySegment.copy(pattern, 0, scratch, ValueLayout.JAVA_BYTE, 0, pattern.length);
        try
        {
            return String.valueOf(raw.write(raw.hello().dataRegion().address() + grant.chunkOffset(),
                grant.writeRkey(), PATTERN_LENGTH));
        }
        catch (final AssertionError | RuntimeException e)
        {
            return "REFUSED(" + e.getMessage().replace(' ', '_') + ")";
        }
    }

    private static String rawLock(final RawSession raw, final long lock, final HelloOkMessage hello)
    {
        try
        {
            return String.valueOf(raw.compareAndSwap(lock, hello.indexRegion().rkey(), 0, hello.sessionId()));
        }
        catch (final AssertionError | RuntimeException e)
        {
            return "REFUSED(" + e.getMessage().replace(' ', '_') + ")";
        }
    }
}
