package io.rdmakv.testsupport.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The certificates most TLS tests need, made once per JVM (keytool is slow to start): a CA, a node
 * certificate it signed for 127.0.0.1 and localhost, a client certificate it signed, and a second CA that
 * signed nothing of these (a wrong CA to trust). The files are removed when the JVM exits.
 *
 * @param ca      the CA that signed {@code node} and {@code client}
 * @param otherCa a CA unrelated to the others
 * @param node    a node certificate chain (SANs ip:127.0.0.1, dns:localhost) and key
 * @param client  a client certificate chain and key
 * @param rogue   a client certificate chain and key signed by {@code otherCa}
 */
public record TlsFixture(Path ca, Path otherCa, TestCertificates.Identity node, TestCertificates.Identity client,
    TestCertificates.Identity rogue)
{
    private static TlsFixture shared;

    /** The fixture of this JVM, made on first use. */
    public static synchronized TlsFixture get()
    {
        if (shared == null)
        {
            shared = make();
        }
        return shared;
    }

    private static TlsFixture make()
    {
        try
        {
            final Path dir = Files.createTempDirectory("rdmakv-tls-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
            final TestCertificates ca = TestCertificates.authority(dir, "good");
            final TestCertificates other = TestCertificates.authority(dir, "other");
            return new TlsFixture(ca.caPem(), other.caPem(), ca.issue("node", "ip:127.0.0.1", "dns:localhost"),
                ca.issue("client"), other.issue("rogue"));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(final Path dir)
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ignore)
        {
            // best effort at exit
        }
    }
}
