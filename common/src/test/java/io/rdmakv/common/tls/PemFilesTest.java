package io.rdmakv.common.tls;

import io.rdmakv.testsupport.tls.TlsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PEM files as kvserver and clients take them: chains and PKCS#8 keys read, anything else refused by name. */
class PemFilesTest
{
    @TempDir
    Path dir;

    @Test
    void readsAChainLeafFirstAndItsKey()
    {
        final TlsFixture tls = TlsFixture.get();
        final List<X509Certificate> chain = PemFiles.certificates(tls.node().certChain());
        assertEquals(2, chain.size(), "leaf and CA");
        assertEquals("CN=node", chain.get(0).getSubjectX500Principal().getName());
        assertEquals(chain.get(1).getSubjectX500Principal(), chain.get(0).getIssuerX500Principal());
        final PrivateKey key = PemFiles.privateKey(tls.node().key());
        assertEquals("EC", key.getAlgorithm());
        PemFiles.checkPair(key, chain.get(0), tls.node().key(), tls.node().certChain());
    }

    @Test
    void aKeyOfAnotherCertificateIsRefusedNamingBoth()
    {
        final TlsFixture tls = TlsFixture.get();
        final X509Certificate node = PemFiles.certificates(tls.node().certChain()).get(0);
        final PrivateKey clientKey = PemFiles.privateKey(tls.client().key());
        final TlsSetupException e = assertThrows(TlsSetupException.class,
            () -> PemFiles.checkPair(clientKey, node, tls.client().key(), tls.node().certChain()));
        assertTrue(e.getMessage().contains("does not belong to the certificate CN=node") &&
            e.getMessage().contains(tls.client().key().toString()), e.getMessage());
        assertThrows(TlsSetupException.class, () -> TlsContexts.withIdentity(tls.node().certChain(),
            tls.client().key(), null));
    }

    @Test
    void otherFormsAreRefusedWithWhatIsExpected() throws IOException
    {
        final Path pkcs1 = Files.writeString(dir.resolve("rsa.pem"),
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assertRefused(() -> PemFiles.privateKey(pkcs1), "openssl pkcs8 -topk8 -nocrypt");
        final Path encrypted = Files.writeString(dir.resolve("enc.pem"),
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertRefused(() -> PemFiles.privateKey(encrypted), "an unencrypted PKCS#8 key");
        final Path empty = Files.writeString(dir.resolve("empty.pem"), "nothing here\n");
        assertRefused(() -> PemFiles.certificates(empty), "holds no '-----BEGIN CERTIFICATE-----' block");
        assertRefused(() -> PemFiles.privateKey(empty), "holds no '-----BEGIN PRIVATE KEY-----' block");
        final Path garbage = Files.writeString(dir.resolve("garbage.pem"),
            "-----BEGIN PRIVATE KEY-----\nAAAAAAAA\n-----END PRIVATE KEY-----\n");
        assertRefused(() -> PemFiles.privateKey(garbage), "the PKCS#8 key is none of");
        final Path badCert = Files.writeString(dir.resolve("bad-cert.pem"),
            "-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n");
        assertRefused(() -> PemFiles.certificates(badCert), "certificate 1 does not parse");
        assertRefused(() -> PemFiles.certificates(dir.resolve("missing.pem")), "cannot read");
        final Path twoKeys = Files.writeString(dir.resolve("two.pem"),
            Files.readString(TlsFixture.get().node().key()) + Files.readString(TlsFixture.get().client().key()));
        assertRefused(() -> PemFiles.privateKey(twoKeys), "more than one private key");
    }

    private static void assertRefused(final org.junit.jupiter.api.function.Executable read, final String expected)
    {
        final TlsSetupException e = assertThrows(TlsSetupException.class, read);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
