package io.rdmakv.ycsb;

import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.RandomByteIterator;
import site.ycsb.Status;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the binding allocates per operation against a real node, in steady state, on the calling thread:
 * a read no more than the result YCSB keeps (see {@code RecordReaderTest}: 1,784 bytes for 10 fields of 100
 * bytes), an update no more than YCSB's own change map costs to walk. The counts are printed (before
 * this change: about 8 KB per read).
 */
class BindingAllocationTest
{
    private static final int FIELDS = 10;
    private static final int FIELD_LENGTH = 100;
    /**
     * Less than the smallest object (16 bytes) per operation: what the client allocates now and then, not per
     * operation (a session's heartbeat bookkeeping, a lease refresh), spread over the run. Any allocation made
     * on every operation exceeds it.
     */
    private static final long RARE = 15;
    /** A read's result: one array of the values, an iterator and a map entry per field, YCSB's map. */
    private static final long READ_BOUND = 16 + FIELDS * FIELD_LENGTH + FIELDS * (32 + 32) + 48 + 80 + RARE;
    /** An update: walking YCSB's change map (its entry iterator, 32 bytes). */
    private static final long UPDATE_BOUND = 32 + RARE;
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;

    private static LocalCluster cluster;
    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    @BeforeAll
    static void startServer()
    {
        cluster = new LocalCluster();
    }

    @AfterAll
    static void stopServer()
    {
        cluster.close();
    }

    private static Map<String, ByteIterator> record()
    {
        final Map<String, ByteIterator> values = new LinkedHashMap<>();
        for (int i = 0; i < FIELDS; i++)
        {
            values.put("field" + i, new RandomByteIterator(FIELD_LENGTH));
        }
        return values;
    }

    @Test
    void readsAllocateTheirResultAndUpdatesAlmostNothing() throws DBException
    {
        final RdmaKvClient db = Bindings.db(cluster);
        try
        {
            for (int k = 0; k < 16; k++)
            {
                assertEquals(Status.OK, db.insert("usertable", "user" + k, record()));
            }
            long fieldsRead = 0;
            for (int i = 0; i < WARM_UP; i++)
            {
                fieldsRead += read(db, i);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < MEASURED; i++)
            {
                fieldsRead += read(db, i);
            }
            final double perRead = (threads.getCurrentThreadAllocatedBytes() - before) / (double)MEASURED;
            assertEquals((long)(WARM_UP + MEASURED) * FIELDS, fieldsRead);

            final byte[] change = new byte[FIELD_LENGTH];
            final Map<String, ByteIterator> changes = new HashMap<>();
            final ReusableIterator value = new ReusableIterator(change);
            changes.put("field3", value);
            for (int i = 0; i < WARM_UP / 4; i++)
            {
                value.rewind();
                assertEquals(Status.OK, db.update("usertable", KEYS[i & 15], changes));
            }
            before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < MEASURED / 4; i++)
            {
                value.rewind();
                db.update("usertable", KEYS[i & 15], changes);
            }
            final double perUpdate = (threads.getCurrentThreadAllocatedBytes() - before) / (MEASURED / 4.0);
            System.out.println("binding bytes allocated per read: " + perRead + " (bound " + READ_BOUND +
                "), per update: " + perUpdate + " (bound " + UPDATE_BOUND + ")");
            assertTrue(perRead <= READ_BOUND, "a read allocated " + perRead + " bytes, its result needs " + READ_BOUND);
            assertTrue(perUpdate <= UPDATE_BOUND, "an update allocated " + perUpdate + " bytes");
        }
        finally
        {
            db.cleanup();
        }
    }

    private static final String[] KEYS = new String[16];

    static
    {
        for (int k = 0; k < KEYS.length; k++)
        {
            KEYS[k] = "user" + k;
        }
    }

    private static int read(final RdmaKvClient db, final int i)
    {
        final Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", KEYS[i & 15], null, result));
        return result.size();
    }

    /** A value YCSB would hand in, readable again after {@link #rewind}: the test allocates none per update. */
    private static final class ReusableIterator extends ByteIterator
    {
        private final byte[] bytes;
        private int at;

        ReusableIterator(final byte[] bytes)
        {
            this.bytes = bytes;
        }

        void rewind()
        {
            at = 0;
        }

        @Override
        public boolean hasNext()
        {
            return at < bytes.length;
        }

        @Override
        public byte nextByte()
        {
            return bytes[at++];
        }

        @Override
        public long bytesLeft()
        {
            return bytes.length - at;
        }
    }
}
