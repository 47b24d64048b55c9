package io.rdmakv.server.bootstrap;

import io.rdmakv.server.health.NodeHealth;
import org.junit.jupiter.api.Test;

import java.io.FileInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session thread (a virtual thread) can wait on its socket even when the node's descriptors are used up:
 * the JDK makes its I/O pollers at the first such wait in the JVM, and the listener has that happen when it
 * is made, not at a first session's read that may come after idle peers took every descriptor (then the
 * read failed with {@code ExceptionInInitializerError}, and the node ended on that instead of on the accept
 * failures). Run in a child JVM with a low descriptor limit: in this one the pollers exist already.
 */
class VirtualThreadIoTest
{
    @Test
    void aFirstSessionReadWithEveryDescriptorTakenWaitsAsAnyRead() throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElseThrow();
        final String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        final Process child = new ProcessBuilder("bash", "-c", "ulimit -n 256 && exec \"$0\" -cp \"$1\" \"$2\"",
            java, classPath, Child.class.getName()).redirectErrorStream(true).start();
        final String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, child.exitValue(), out);
        assertTrue(out.startsWith("descriptors exhausted"), out);
        assertTrue(out.endsWith("read: timed out"), out);
    }

    /** A listener, then every descriptor taken, then a virtual thread's first blocking socket read. */
    public static final class Child
    {
        private Child()
        {
        }

        public static void main(final String[] args) throws Exception
        {
            final InetAddress loopback = InetAddress.getLoopbackAddress();
            try (ServerSocket server = new ServerSocket(0, 1, loopback);
                Socket client = new Socket(loopback, server.getLocalPort());
                Socket accepted = server.accept();
                BootstrapListener listener = new BootstrapListener(new InetSocketAddress(loopback, 0),
                    TimeUnit.SECONDS.toNanos(3), (hello, socket) -> null, new NodeHealth()))
            {
                final List<FileInputStream> taken = new ArrayList<>();
                try
                {
                    while (true)
                    {
                        taken.add(new FileInputStream("/dev/null"));
                    }
                }
                catch (final IOException e)
                {
                    System.out.println("descriptors exhausted after " + taken.size() + ": " + e.getMessage());
                }
                final String[] outcome = new String[1];
                final Thread session = Thread.ofVirtual().start(() ->
                {
                    try
                    {
                        accepted.setSoTimeout(100);
                        outcome[0] = "read " + accepted.getInputStream().read();
                    }
                    catch (final SocketTimeoutException e)
                    {
                        outcome[0] = "timed out";
                    }
                    catch (final IOException | RuntimeException | Error e)
                    {
                        outcome[0] = BootstrapListener.describe(e);
                    }
                });
                session.join();
                for (final FileInputStream f : taken)
                {
                    f.close();
                }
                System.out.println("read: " + outcome[0]);
            }
        }
    }
}
