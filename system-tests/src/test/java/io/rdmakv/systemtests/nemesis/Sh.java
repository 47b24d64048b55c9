package io.rdmakv.systemtests.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs short system commands (ip, nft, kill) and fails with their output when they fail. */
final class Sh
{
    private Sh()
    {
    }

    /** Runs {@code command}, optionally feeding {@code input} on stdin; returns stdout; throws on a non-zero exit. */
    static String run(final String input, final List<String> command)
    {
        final Result r = tryRun(input, command);
        if (r.rc != 0)
        {
            throw new IllegalStateException("'" + String.join(" ", command) + "' exited with " + r.rc + ": " + r.output);
        }
        return r.output;
    }

    static String run(final String... command)
    {
        return run(null, List.of(command));
    }

    /** Runs {@code command} and returns its exit status and output (stdout and stderr together). */
    static Result tryRun(final String input, final List<String> command)
    {
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (input != null)
            {
                p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                return new Result(124, out + " (timed out)");
            }
            return new Result(p.exitValue(), out.strip());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot run " + command, e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }

    static Result tryRun(final String... command)
    {
        return tryRun(null, List.of(command));
    }

    record Result(int rc, String output)
    {
    }
}
