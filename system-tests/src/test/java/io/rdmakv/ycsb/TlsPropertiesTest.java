package io.rdmakv.ycsb;

import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.tls.TlsFixture;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rdmakv.tls.ca, rdmakv.tls.cert and rdmakv.tls.key: the binding reaches a node that requires client certificates. */
class TlsPropertiesTest
{
    @Test
    void aClientCertificateFromThePropertiesReachesANodeThatRequiresOne() throws DBException
    {
        final TlsFixture f = TlsFixture.get();
        try (LocalCluster cluster = new LocalCluster(ServerConfig.local(LocalCluster.MEMORY).withTls(
            new ServerConfig.ServerTls(f.node().certChain(), f.node().key(), f.ca()))))
        {
            final Properties p = Bindings.properties(cluster);
            assertThrows(DBException.class, () -> Bindings.db(p), "no TLS: the node refuses");
            p.setProperty(RdmaKvClient.TLS_CA_PROPERTY, f.ca().toString());
            p.setProperty(RdmaKvClient.TLS_CERT_PROPERTY, f.client().certChain().toString());
            p.setProperty(RdmaKvClient.TLS_KEY_PROPERTY, f.client().key().toString());
            final RdmaKvClient db = Bindings.db(p);
            try
            {
                final Map<String, ByteIterator> fields = new HashMap<>();
                fields.put("field0", new ByteArrayByteIterator("v".getBytes()));
                assertEquals(Status.OK, db.insert("usertable", "user1", fields));
                final Map<String, ByteIterator> read = new HashMap<>();
                assertEquals(Status.OK, db.read("usertable", "user1", Set.of("field0"), read));
                assertEquals("v", read.get("field0").toString());
            }
            finally
            {
                db.cleanup();
            }
        }
    }

    @Test
    void aCertificateWithoutItsKeyOrWithoutACaIsRefusedByName()
    {
        final TlsFixture f = TlsFixture.get();
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.TLS_CERT_PROPERTY, f.client().certChain().toString());
        DBException e = assertThrows(DBException.class, () -> BindingConfig.from(p));
        assertTrue(e.getMessage().contains("rdmakv.tls.cert and rdmakv.tls.key go together"), e.getMessage());
        p.setProperty(RdmaKvClient.TLS_KEY_PROPERTY, f.client().key().toString());
        e = assertThrows(DBException.class, () -> BindingConfig.from(p));
        assertTrue(e.getMessage().contains("rdmakv.tls.cert needs rdmakv.tls.ca"), e.getMessage());
        p.setProperty(RdmaKvClient.TLS_CA_PROPERTY, "/nonexistent/ca.pem");
        e = assertThrows(DBException.class, () -> BindingConfig.from(p));
        assertTrue(e.getMessage().contains("cannot read /nonexistent/ca.pem"), e.getMessage());
    }
}
