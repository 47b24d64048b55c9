package io.rdmakv.systemtests.nemesis;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A nemesis client process: {@code THREADS} threads on {@code KEYS} keys named {@code PREFIX<i>} doing GET 40%,
 * PUT of unique values 25%, compare-and-set 20% (from the version the thread last read) and DELETE 15%, each call
 * written to {@code OUT} as an {@link OpLine}. Runs until a line arrives on stdin (or stdin closes), then writes
 * the calls still in flight as indeterminate, prints "done" and exits.
 * <p>Arguments: SEEDS BIND_ADDRESS PREFIX KEYS THREADS CLIENT_INDEX OUT OP_TIMEOUT_MS
 */
public final class NemesisClientMain
{
    private final KvClient client;
    private final String prefix;
    private final int keys;
    private final int index;
    private final BufferedWriter out;
    private final AtomicReferenceArray<OpLine> inFlight;
    private volatile boolean stopped;
    /** Set once the calls still running were written as indeterminate: a late answer is then not written again. */
    private boolean closed;

    private NemesisClientMain(final KvClient client, final String prefix, final int keys, final int threads,
        final int index, final BufferedWriter out)
    {
        this.client = client;
        this.prefix = prefix;
        this.keys = keys;
        this.index = index;
        this.out = out;
        inFlight = new AtomicReferenceArray<>(threads);
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length != 8)
        {
            System.err.println("usage: NemesisClientMain SEEDS BIND_ADDRESS PREFIX KEYS THREADS CLIENT_INDEX OUT OP_TIMEOUT_MS");
            System.exit(2);
        }
        final int threads = Integer.parseInt(args[4]);
        final KvClient client = connect(NemesisNodes.clientConfig(args[0], args[1], Duration.ofMillis(Long.parseLong(args[7]))));
        try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[6])))
        {
            final NemesisClientMain main = new NemesisClientMain(client, args[2], Integer.parseInt(args[3]), threads,
                Integer.parseInt(args[5]), out);
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                workers.add(Thread.ofPlatform().name("nemesis-client-" + t).start(() -> main.run(thread)));
            }
            System.out.println("running");
            new BufferedReader(new InputStreamReader(System.in)).readLine();
            main.stopped = true;
            for (final Thread w : workers)
            {
                w.join(30_000);
            }
            main.flushInFlight();
        }
        System.out.println("done");
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }

    private static KvClient connect(final io.rdmakv.client.KvClientConfig config) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true)
        {
            try
            {
                return KvClient.connect(config);
            }
            catch (final RuntimeException e)
            {
                if (System.nanoTime() > deadline)
                {
                    throw e;
                }
                System.out.println("connect failed, retrying: " + e);
                Thread.sleep(500);
            }
        }
    }

    private void run(final int thread)
    {
        final int process = index * 100 + thread;
        final SplittableRandom random = new SplittableRandom(31L * process + System.nanoTime());
        final Versioned[] lastRead = new Versioned[keys];
        for (long i = 0; !stopped; i++)
        {
            LockSupport.parkNanos(2_000_000);
            final int key = random.nextInt(keys);
            final byte[] keyBytes = (prefix + key).getBytes();
            final long value = ((long)(process + 1) << 40) | i;
            final int dice = random.nextInt(100);
            final long invoke = System.nanoTime();
            if (dice < 40)
            {
                inFlight.set(thread, new OpLine(process, "GET", key, "?", "-", invoke, -1, "indeterminate", "-"));
                try
                {
                    final Versioned v = client.getVersioned(keyBytes);
                    lastRead[key] = v;
                    done(thread, new OpLine(process, "GET", key, v == null ? OpLine.ABSENT : Long.toString(decode(v.value())),
                        "-", invoke, System.nanoTime(), "ok", "-"));
                }
                catch (final RuntimeException e)
                {
                    done(thread, new OpLine(process, "GET", key, "?", "-", invoke, System.nanoTime(), "fail", name(e)));
                }
            }
            else if (dice < 65)
            {
                write(thread, new OpLine(process, "PUT", key, Long.toString(value), "-", invoke, -1, "indeterminate", "-"),
                    () ->
                    {
                        client.put(keyBytes, encode(value, random));
                        return new Done("ok", Long.toString(value));
                    });
            }
            else if (dice < 80)
            {
                write(thread, new OpLine(process, "DEL", key, "?", "-", invoke, -1, "indeterminate", "-"),
                    () -> new Done("ok", Boolean.toString(client.delete(keyBytes))));
            }
            else
            {
                final Versioned seen = lastRead[key];
                final String expected = seen == null ? OpLine.ABSENT : Long.toString(decode(seen.value()));
                write(thread, new OpLine(process, "CAS", key, Long.toString(value), expected, invoke, -1, "indeterminate", "-"),
                    () -> new Done(client.putIfVersion(keyBytes, encode(value, random),
                        seen == null ? KvClient.ABSENT : seen.version()) ? "ok" : "fail", Long.toString(value)));
            }
        }
    }

    /** A write's outcome and what its line's value field says (a DEL: whether the key existed). */
    private record Done(String outcome, String value)
    {
    }

    private void write(final int thread, final OpLine pending, final java.util.function.Supplier<Done> call)
    {
        inFlight.set(thread, pending);
        try
        {
            final Done d = call.get();
            done(thread, new OpLine(pending.process(), pending.op(), pending.key(), d.value(), pending.expected(),
                pending.invoke(), System.nanoTime(), d.outcome(), "-"));
        }
        catch (final RuntimeException e)
        {
            logFailure(pending, e);
            done(thread, new OpLine(pending.process(), pending.op(), pending.key(), pending.value(), pending.expected(),
                pending.invoke(), -1, "indeterminate", name(e)));
        }
    }

    /**
     * The first {@link #LOGGED_PER_KIND} failures of each exception class go to the client's log with their message
     * (the history keeps only the class): which node refused, and why.
     */
    private void logFailure(final OpLine pending, final RuntimeException e)
    {
        if (failuresLogged.merge(name(e), 1, Integer::sum) <= LOGGED_PER_KIND)
        {
            System.out.println("failed " + pending.op() + " of key " + pending.key() + ": " + e);
        }
    }

    private static final int LOGGED_PER_KIND = 5;
    private final java.util.concurrent.ConcurrentHashMap<String, Integer> failuresLogged =
        new java.util.concurrent.ConcurrentHashMap<>();

    private void done(final int thread, final OpLine line)
    {
        inFlight.set(thread, null);
        append(line);
    }

    private synchronized void append(final OpLine line)
    {
        if (closed)
        {
            return;
        }
        try
        {
            out.write(line.format());
            out.newLine();
        }
        catch (final IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Writes the calls that did not return by the end as indeterminate (a GET among them constrains nothing). */
    private synchronized void flushInFlight()
    {
        for (int t = 0; t < inFlight.length(); t++)
        {
            final OpLine p = inFlight.getAndSet(t, null);
            if (p != null)
            {
                append(new OpLine(p.process(), p.op(), p.key(), p.value(), p.expected(), p.invoke(), -1,
                    "GET".equals(p.op()) ? "fail" : "indeterminate", "still-running-at-the-end"));
            }
        }
        closed = true;
    }

    private static String name(final RuntimeException e)
    {
        return e.getClass().getSimpleName();
    }

    static byte[] encode(final long value, final SplittableRandom random)
    {
        return ByteBuffer.allocate(8 + random.nextInt(100)).putLong(value).array();
    }

    static long decode(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).getLong();
    }

    static OptionalLong read(final byte[] bytes)
    {
        return bytes == null ? OptionalLong.empty() : OptionalLong.of(decode(bytes));
    }
}
