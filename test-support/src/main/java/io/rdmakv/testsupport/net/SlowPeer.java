package io.rdmakv.testsupport.net;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;

/**
 * The peer side of a deadline test: writes bytes slowly, and watches for the other end closing the connection.
 */
public final class SlowPeer
{
    private SlowPeer()
    {
    }

    /** Writes {@code bytes} one at a time, {@code pauseMs} apart, until done or the connection breaks. */
    public static void trickle(final Socket socket, final byte[] bytes, final long pauseMs)
    {
        try
        {
            for (final byte b : bytes)
            {
                socket.getOutputStream().write(b);
                socket.getOutputStream().flush();
                Thread.sleep(pauseMs);
            }
        }
        catch (final IOException | InterruptedException e)
        {
            // the other end closed the connection: what the test waits for
        }
    }

    /**
     * Completes with the {@link System#nanoTime()} at which the other end closed {@code socket} (end of stream or
     * reset), reading and dropping anything it sends until then; fails with an {@link AssertionError} carrying
     * {@code stillOpenMessage} when a read outlasts the socket's timeout.
     */
    public static CompletableFuture<Long> closedAt(final Socket socket, final String stillOpenMessage)
    {
        final CompletableFuture<Long> closed = new CompletableFuture<>();
        Thread.ofVirtual().start(() ->
        {
            try
            {
                while (socket.getInputStream().read() >= 0)
                {
                    // nothing is answered to an unfinished handshake: wait for the end
                }
                closed.complete(System.nanoTime());
            }
            catch (final SocketTimeoutException e)
            {
                closed.completeExceptionally(new AssertionError(stillOpenMessage));
            }
            catch (final IOException e)
            {
                closed.complete(System.nanoTime());
            }
        });
        return closed;
    }
}
