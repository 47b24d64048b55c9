package io.rdmakv.ycsb;

import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every DB method and the status it returns, against a real server. */
class RdmaKvClientTest
{
    private static LocalCluster cluster;
    private RdmaKvClient db;

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

    @BeforeEach
    void init() throws DBException
    {
        db = Bindings.db(cluster);
    }

    @AfterEach
    void cleanup()
    {
        db.cleanup();
    }

    static Map<String, ByteIterator> fields(final String... namesAndValues)
    {
        final Map<String, String> m = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            m.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return StringByteIterator.getByteIteratorMap(m);
    }

    static Map<String, String> read(final RdmaKvClient db, final String key, final Set<String> fields)
    {
        final Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", key, fields, result));
        return StringByteIterator.getStringMap(result);
    }

    @Test
    void insertThenReadAllFields()
    {
        assertEquals(Status.OK, db.insert("usertable", "user1", fields("field0", "a", "field1", "b", "field2", "c")));
        assertEquals(Map.of("field0", "a", "field1", "b", "field2", "c"), read(db, "user1", null));
    }

    @Test
    void readReturnsOnlyTheNamedFields()
    {
        db.insert("usertable", "user2", fields("field0", "a", "field1", "b", "field2", "c"));
        assertEquals(Map.of("field1", "b"), read(db, "user2", Set.of("field1")));
        assertEquals(Map.of("field0", "a", "field2", "c"), read(db, "user2", Set.of("field0", "field2", "field9")));
    }

    @Test
    void readOfAMissingKeyIsNotFound()
    {
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user-never-written", null, new HashMap<>()));
    }

    @Test
    void updateChangesTheNamedFieldsAndKeepsTheOthers()
    {
        db.insert("usertable", "user3", fields("field0", "a", "field1", "b", "field2", "c"));
        assertEquals(Status.OK, db.update("usertable", "user3", fields("field1", "B", "field3", "new")));
        assertEquals(Map.of("field0", "a", "field1", "B", "field2", "c", "field3", "new"), read(db, "user3", null));
    }

    @Test
    void updateOfAMissingKeyIsNotFoundAndCreatesNothing()
    {
        assertEquals(Status.NOT_FOUND, db.update("usertable", "user-missing", fields("field0", "x")));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user-missing", null, new HashMap<>()));
    }

    @Test
    void insertReplacesTheWholeRecord()
    {
        db.insert("usertable", "user4", fields("field0", "a", "field1", "b"));
        assertEquals(Status.OK, db.insert("usertable", "user4", fields("field2", "c")));
        assertEquals(Map.of("field2", "c"), read(db, "user4", null));
    }

    @Test
    void deleteRemovesAndADeleteOfAMissingKeyIsNotFound()
    {
        db.insert("usertable", "user5", fields("field0", "a"));
        assertEquals(Status.OK, db.delete("usertable", "user5"));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user5", null, new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.delete("usertable", "user5"));
    }

    @Test
    void scanIsNotImplemented()
    {
        assertEquals(Status.NOT_IMPLEMENTED, db.scan("usertable", "user1", 10, null, new Vector<>()));
    }

    @Test
    void theTableNameIsIgnored()
    {
        db.insert("usertable", "user6", fields("field0", "a"));
        assertEquals(Map.of("field0", "a"), read(db, "user6", null));
        final Map<String, ByteIterator> other = new HashMap<>();
        assertEquals(Status.OK, db.read("othertable", "user6", null, other));
    }

    @Test
    void aValueThatIsNotARecordIsAnError()
    {
        db.client().put("user7".getBytes(StandardCharsets.UTF_8), "plain text".getBytes(StandardCharsets.UTF_8));
        assertEquals(Status.ERROR, db.read("usertable", "user7", null, new HashMap<>()));
        assertEquals(Status.ERROR, db.update("usertable", "user7", fields("field0", "x")));
    }
}
