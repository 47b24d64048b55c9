package io.rdmakv.systemtests.nemesis;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of the test class path started in a member's namespace with {@code ip netns exec} (which execs, so the
 * process is the JVM itself and signals reach it); its stdout and stderr go to {@code <dir>/<label>.log}.
 */
final class NsProcess implements AutoCloseable
{
    final String label;
    final Path log;
    private final Process process;

    private NsProcess(final String label, final Path log, final Process process)
    {
        this.label = label;
        this.log = log;
        this.process = process;
    }

    /** Starts {@code mainClass} with {@code args} in member {@code member}'s namespace. */
    static NsProcess start(final String member, final String label, final Path dir, final List<String> jvmOptions,
        final String mainClass, final List<String> args)
    {
        final String java = ProcessHandle.current().info().command()
            .orElseThrow(() -> new IllegalStateException("cannot tell which java binary runs this JVM"));
        final List<String> command = new ArrayList<>(NetNamespaces.exec(member));
        command.addAll(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC", "-Xshare:auto", "-XX:-UsePerfData"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(), mainClass));
        command.addAll(args);
        try
        {
            Files.createDirectories(dir);
            final Path log = dir.resolve(label + ".log");
            Files.writeString(log, "# " + String.join(" ", command).replace(classPath(), "$CP") + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            final Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            return new NsProcess(label, log, p);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot start " + label, e);
        }
    }

    /** The class path children use: {@code rdmakv.test.childClassPath} when set, else this JVM's. */
    static String classPath()
    {
        final String given = System.getProperty("rdmakv.test.childClassPath", "");
        return given.isBlank() ? System.getProperty("java.class.path") : given;
    }

    long pid()
    {
        return process.pid();
    }

    boolean alive()
    {
        return process.isAlive();
    }

    /** Sends {@code signal} (STOP, CONT, TERM, KILL) to the process. */
    void signal(final String signal)
    {
        Sh.run("kill", "-" + signal, Long.toString(process.pid()));
    }

    /** Writes a line to the process's stdin. */
    void tell(final String line)
    {
        try
        {
            final OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot write to " + label + " (exited? see " + log + ")", e);
        }
    }

    /** Waits up to {@code seconds} for the exit; returns whether it exited. */
    boolean awaitExit(final long seconds) throws InterruptedException
    {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** SIGKILL (a stopped process dies too), waiting for the exit. */
    void kill() throws InterruptedException
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            if (!process.waitFor(15, TimeUnit.SECONDS))
            {
                throw new IllegalStateException(label + " (pid " + process.pid() + ") still alive 15 s after SIGKILL");
            }
        }
    }

    /** The last {@code chars} characters of the log. */
    String tail(final int chars)
    {
        try
        {
            final String text = Files.readString(log);
            return text.length() > chars ? "..." + text.substring(text.length() - chars) : text;
        }
        catch (final IOException e)
        {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        kill();
    }
}
