package io.rdmakv.systemtests.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A main class of the test classpath run in a separate JVM (same java binary, same classpath), whose
 * stdout lines the test reads as they come; stderr goes to a file for failure messages.
 */
public final class ChildJvm implements AutoCloseable
{
    private static final String END = "\u0000end";

    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;

    private ChildJvm(final Process process, final Path stderr)
    {
        this.process = process;
        this.stderr = stderr;
        reader = Thread.ofVirtual().name("child-stdout-" + process.pid()).start(this::pump);
    }

    /** Where child JVMs find the tests' classes when the runner is not on the class path itself. */
    public static final String CLASS_PATH_PROPERTY = "rdmakv.test.childClassPath";

    /**
     * The class path for a child: {@value #CLASS_PATH_PROPERTY} when set (a JUnit console launcher, as in the
     * Soft-RoCE VM, loads the tests from its own {@code --class-path}, not {@code java.class.path}), else
     * this JVM's.
     */
    static String classPath()
    {
        final String given = System.getProperty(CLASS_PATH_PROPERTY, "");
        return given.isBlank() ? System.getProperty("java.class.path") : given;
    }

    public static ChildJvm start(final Class<?> main, final Path dir, final String... args)
    {
        return start(List.of(), main, dir, args);
    }

    /** {@link #start(Class, Path, String...)} with extra JVM options. */
    public static ChildJvm start(final List<String> jvmOptions, final Class<?> main, final Path dir,
        final String... args)
    {
        final String java = ProcessHandle.current().info().command()
            .orElseThrow(() -> new AssertionError("cannot tell which java binary runs this test"));
        final List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(), main.getName()));
        command.addAll(List.of(args));
        try
        {
            final Path err = Files.createTempFile(dir, main.getSimpleName(), ".stderr");
            final Process p = new ProcessBuilder(command).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE).start();
            return new ChildJvm(p, err);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private void pump()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                lines.add(line);
            }
        }
        catch (final IOException ignore)
        {
            // the child died: its stdout ends
        }
        finally
        {
            lines.add(END);
        }
    }

    /** The next stdout line, or null when the child's stdout ended; fails after {@code timeoutMs}. */
    public String nextLine(final long timeoutMs) throws InterruptedException
    {
        final String line = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (line == null)
        {
            throw new AssertionError("child printed nothing for " + timeoutMs + " ms; stderr: " + stderr());
        }
        if (END.equals(line))
        {
            lines.add(END);
            return null;
        }
        return line;
    }

    /** SIGKILL: no shutdown hook, no BYE, sockets closed by the kernel. Waits for the exit (bounded). */
    public void kill() throws InterruptedException
    {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS))
        {
            throw new AssertionError("child " + process.pid() + " still alive 10 s after SIGKILL");
        }
    }

    public Process process()
    {
        return process;
    }

    /** The file the child's stderr goes to (whole). */
    public Path stderrFile()
    {
        return stderr;
    }

    public String stderr()
    {
        try
        {
            final String text = Files.readString(stderr);
            return text.length() > 4000 ? text.substring(0, 4000) + "..." : text;
        }
        catch (final IOException e)
        {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        if (process.isAlive())
        {
            kill();
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
    }
}
