package io.rdmakv.systemtests.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The test's handle on one {@link NemesisClientMain} process in its namespace, and the history it wrote. */
final class NemesisClient
{
    static final int OP_TIMEOUT_MS = 5000;

    private final NsProcess process;
    private final Path history;

    private NemesisClient(final NsProcess process, final Path history)
    {
        this.process = process;
        this.history = history;
    }

    /** Starts client {@code index} in member {@code member} (at {@code address}) on keys {@code prefix<0..keys-1>}. */
    static NemesisClient start(final String member, final String address, final int index, final Path dir,
        final String seeds, final String prefix, final int keys, final int threads)
    {
        final Path history = dir.resolve(prefix + "c" + index + ".history").toAbsolutePath();
        final NsProcess p = NsProcess.start(member, prefix + "c" + index, dir, List.of("-Xmx128m"),
            NemesisClientMain.class.getName(), List.of(seeds, address, prefix, Integer.toString(keys),
                Integer.toString(threads), Integer.toString(index), history.toString(), Integer.toString(OP_TIMEOUT_MS)));
        return new NemesisClient(p, history);
    }

    /** Waits until the client has connected and its threads run. */
    void awaitRunning(final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.currentTimeMillis() + timeoutMs;
        while (!process.tail(100_000).contains("\nrunning"))
        {
            if (!process.alive() || System.currentTimeMillis() > deadline)
            {
                throw new IllegalStateException("client " + process.label + " is not running: " + process.tail(3000));
            }
            Thread.sleep(100);
        }
    }

    /** Tells the client to stop, waits for it to exit and returns its history. */
    List<OpLine> stop() throws InterruptedException
    {
        if (process.alive())
        {
            process.tell("stop");
        }
        if (!process.awaitExit(60))
        {
            process.kill();
            throw new IllegalStateException("client " + process.label + " did not stop within 60 s: " + process.tail(3000));
        }
        try
        {
            final List<OpLine> ops = new ArrayList<>();
            for (final String line : Files.readAllLines(history))
            {
                if (!line.isBlank())
                {
                    ops.add(OpLine.parse(line));
                }
            }
            return ops;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read " + history + " (client log: " + process.tail(2000) + ")", e);
        }
    }
}
