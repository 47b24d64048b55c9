package io.rdmakv.testsupport.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made at test time with the JDK's {@code keytool} (EC P-256 keys, valid two days),
 * which issues certificates as PEM files: the chain (leaf, then the CA) and the leaf's unencrypted PKCS#8 key,
 * as kvserver's {@code --tls-cert}/{@code --tls-key} and the client's TLS settings take them.
 */
public final class TestCertificates
{
    private static final String PASSWORD = "test-only";
    private static final long KEYTOOL_TIMEOUT_SECONDS = 120;

    /** A certificate chain file and its key file. */
    public record Identity(Path certChain, Path key)
    {
    }

    private final Path dir;
    private final String name;
    private final Path store;
    private final Path caPem;

    private TestCertificates(final Path dir, final String name)
    {
        this.dir = dir;
        this.name = name;
        store = dir.resolve(name + "-ca.p12");
        caPem = dir.resolve(name + "-ca.pem");
    }

    /** A new CA called {@code name} whose files go to {@code dir}. */
    public static TestCertificates authority(final Path dir, final String name)
    {
        final TestCertificates ca = new TestCertificates(dir, name);
        ca.keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=" + name + " test CA", "-ext", "bc:c", "-validity", "2", "-keystore", ca.store.toString());
        ca.keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.store.toString(), "-file",
            ca.caPem.toString());
        return ca;
    }

    /** The CA's certificate (PEM): what a peer trusts. */
    public Path caPem()
    {
        return caPem;
    }

    /**
     * Issues a certificate for {@code subject} with the subject alternative names {@code sans} (keytool's form:
     * {@code ip:127.0.0.1}, {@code dns:localhost}; none for a client).
     */
    public Identity issue(final String subject, final String... sans)
    {
        final Path leafStore = dir.resolve(name + "-" + subject + ".p12");
        final Path csr = dir.resolve(name + "-" + subject + ".csr");
        final Path leaf = dir.resolve(name + "-" + subject + "-leaf.pem");
        keytool("-genkeypair", "-alias", "leaf", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=" + subject, "-validity", "2", "-keystore", leafStore.toString());
        keytool("-certreq", "-alias", "leaf", "-keystore", leafStore.toString(), "-file", csr.toString());
        final List<String> sign = new ArrayList<>(List.of("-gencert", "-rfc", "-alias", "ca", "-keystore",
            store.toString(), "-infile", csr.toString(), "-outfile", leaf.toString(), "-validity", "2"));
        if (sans.length > 0)
        {
            sign.addAll(List.of("-ext", "san=" + String.join(",", sans)));
        }
        keytool(sign.toArray(new String[0]));
        try
        {
            final Path chain = dir.resolve(name + "-" + subject + "-chain.pem");
            Files.writeString(chain, Files.readString(leaf) + Files.readString(caPem));
            final Path key = dir.resolve(name + "-" + subject + "-key.pem");
            Files.writeString(key, pkcs8Pem(leafStore));
            return new Identity(chain, key);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static String pkcs8Pem(final Path p12) throws IOException
    {
        try (InputStream in = Files.newInputStream(p12))
        {
            final KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            final Key key = ks.getKey("leaf", PASSWORD.toCharArray());
            return "-----BEGIN PRIVATE KEY-----\n" +
                Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded()) +
                "\n-----END PRIVATE KEY-----\n";
        }
        catch (final GeneralSecurityException e)
        {
            throw new IllegalStateException("cannot read the key keytool made in " + p12, e);
        }
    }

    private void keytool(final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")); // starts twice as fast
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD, "-keypass", PASSWORD, "-storetype", "PKCS12", "-noprompt"));
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                p.destroyForcibly();
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while keytool ran", e);
        }
    }
}
