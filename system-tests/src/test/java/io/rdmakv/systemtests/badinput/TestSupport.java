package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.LocalCluster;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** Small checks the bad-input tests share. */
final class TestSupport
{
    private TestSupport()
    {
    }

    static void closeQuietly(final AutoCloseable c)
    {
        LocalCluster.closeAll(c);
    }

    /** A new, well-behaved client can write and read a key of its own on {@code server}. */
    static void assertServes(final KvServer server, final String why)
    {
        try (KvClient client = LocalCluster.client(server))
        {
            final byte[] key = LocalCluster.bytes("still-serving-" + System.nanoTime());
            final byte[] value = LocalCluster.bytes("value after " + why);
            client.put(key, value);
            assertArrayEquals(value, client.get(key), "the node still serves clients after " + why);
        }
    }

    /** Little-endian bytes of a control message header followed by {@code body}. */
    static byte[] frame(final int type, final long lengthField, final long requestId, final byte[] body)
    {
        final ByteBuffer b = ByteBuffer.allocate(16 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short)type).putShort((short)0).putInt((int)lengthField).putLong(requestId).put(body);
        return b.array();
    }

    static byte[] concat(final byte[] a, final byte[] b)
    {
        final byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
