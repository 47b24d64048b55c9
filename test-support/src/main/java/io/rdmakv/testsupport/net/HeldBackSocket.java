package io.rdmakv.testsupport.net;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A plain socket whose writes can be held back instead of sent, so that a test can send what a layer on top
 * (TLS) wrote, whole records of it, the way it likes: one byte at a time ({@link SlowPeer#trickle}). Layer an
 * {@code SSLSocket} over it, {@link #holdBack()}, write through the TLS socket, {@link #takeHeldBack()} the
 * records, and write them here again.
 */
public final class HeldBackSocket extends java.net.Socket
{
    private final ByteArrayOutputStream held = new ByteArrayOutputStream();
    private volatile boolean holding;

    /** From now on writes are kept, not sent. */
    public void holdBack()
    {
        holding = true;
    }

    /** What was written since {@link #holdBack()}; writes are sent again from now on. */
    public synchronized byte[] takeHeldBack()
    {
        holding = false;
        final byte[] bytes = held.toByteArray();
        held.reset();
        return bytes;
    }

    @Override
    public OutputStream getOutputStream() throws IOException
    {
        return new FilterOutputStream(super.getOutputStream())
        {
            @Override
            public void write(final byte[] b, final int off, final int len) throws IOException
            {
                synchronized (HeldBackSocket.this)
                {
                    if (holding)
                    {
                        held.write(b, off, len);
                        return;
                    }
                }
                out.write(b, off, len);
            }

            @Override
            public void write(final int b) throws IOException
            {
                write(new byte[] {(byte)b}, 0, 1);
            }
        };
    }
}
