package io.rdmakv.systemtests.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.systemtests.LocalCluster;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The client a test kills: run in its own JVM, it PUTs {@code k0, k1, ...} with 1 KiB values and prints
 * {@code "ACK i ."} after each put returned, one flushed line per put (the closing dot tells a whole line
 * from one cut by the kill). After {@code count} puts it prints {@code DONE} and waits for its stdin to
 * close.
 *
 * <p>Arguments: {@code HOST:PORT COUNT}.
 */
public final class PutterMain
{
    public static final int VALUE_LENGTH = 1024;

    private PutterMain()
    {
    }

    public static byte[] key(final int i)
    {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** A value no other key has: a pattern seeded by {@code i}. */
    public static byte[] value(final int i)
    {
        final byte[] v = new byte[VALUE_LENGTH];
        for (int j = 0; j < v.length; j++)
        {
            v[j] = (byte)(i * 31 + j * 7 + (j >>> 8));
        }
        return v;
    }

    public static void main(final String[] args) throws IOException
    {
        final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
            StandardCharsets.UTF_8);
        final int count = Integer.parseInt(args[1]);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(args[0])))
        {
            out.println("READY");
            out.flush();
            for (int i = 0; i < count; i++)
            {
                client.put(key(i), value(i));
                out.println("ACK " + i + " .");
                out.flush();
            }
            out.println("DONE");
            out.flush();
            while (System.in.read() >= 0)
            {
                // parked until the test closes our stdin or kills us
            }
        }
    }
}
