package io.rdmakv.common.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files: certificate chains ({@code -----BEGIN CERTIFICATE-----} blocks, leaf first) and
 * unencrypted PKCS#8 private keys ({@code -----BEGIN PRIVATE KEY-----}: RSA, EC, Ed25519 or Ed448). Every
 * failure names the file and says what was expected.
 */
public final class PemFiles
{
    private static final Pattern BLOCK = Pattern.compile(
        "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)\\s*-----END \\1-----");
    private static final String CERTIFICATE = "CERTIFICATE";
    private static final String PKCS8_KEY = "PRIVATE KEY";
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");

    private PemFiles()
    {
    }

    /** Every certificate in {@code file}, in file order; at least one. */
    public static List<X509Certificate> certificates(final Path file)
    {
        final List<X509Certificate> certs = new ArrayList<>();
        final CertificateFactory factory;
        try
        {
            factory = CertificateFactory.getInstance("X.509");
        }
        catch (final CertificateException e)
        {
            throw new IllegalStateException("this JDK has no X.509 support", e);
        }
        for (final Block block : blocks(file))
        {
            if (!CERTIFICATE.equals(block.label))
            {
                continue;
            }
            try
            {
                certs.add((X509Certificate)factory.generateCertificate(new ByteArrayInputStream(block.der)));
            }
            catch (final CertificateException e)
            {
                throw new TlsSetupException("certificate file " + file + ": certificate " + (certs.size() + 1) +
                    " does not parse: " + e.getMessage(), e);
            }
        }
        if (certs.isEmpty())
        {
            throw new TlsSetupException("certificate file " + file + " holds no '-----BEGIN " + CERTIFICATE +
                "-----' block (a PEM certificate is expected)");
        }
        return List.copyOf(certs);
    }

    /** The one unencrypted PKCS#8 private key in {@code file}. */
    public static PrivateKey privateKey(final Path file)
    {
        PrivateKey key = null;
        for (final Block block : blocks(file))
        {
            if (block.label.endsWith(PKCS8_KEY) && !PKCS8_KEY.equals(block.label))
            {
                throw new TlsSetupException("key file " + file + " holds a '" + block.label + "': an unencrypted " +
                    "PKCS#8 key ('-----BEGIN " + PKCS8_KEY + "-----') is expected; convert it with " +
                    "'openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8'");
            }
            if (PKCS8_KEY.equals(block.label))
            {
                if (key != null)
                {
                    throw new TlsSetupException("key file " + file + " holds more than one private key");
                }
                key = decodeKey(file, block.der);
            }
        }
        if (key == null)
        {
            throw new TlsSetupException("key file " + file + " holds no '-----BEGIN " + PKCS8_KEY + "-----' block");
        }
        return key;
    }

    /** Refuses {@code key} unless it is the private half of {@code cert}'s public key (a signature check). */
    public static void checkPair(final PrivateKey key, final X509Certificate cert, final Path keyFile,
        final Path certFile)
    {
        final PublicKey pub = cert.getPublicKey();
        final String algorithm = switch (pub.getAlgorithm())
        {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> pub.getAlgorithm();
            default -> null;
        };
        if (algorithm == null)
        {
            return; // RSASSA-PSS and rarer kinds: the TLS handshake itself will tell
        }
        final byte[] probe = "rdmakv key pair check".getBytes(StandardCharsets.US_ASCII);
        boolean matches;
        try
        {
            final Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            final byte[] signature = signer.sign();
            final Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(pub);
            verifier.update(probe);
            matches = verifier.verify(signature);
        }
        catch (final GeneralSecurityException e)
        {
            matches = false;
        }
        if (!matches)
        {
            throw new TlsSetupException("the private key in " + keyFile + " does not belong to the certificate " +
                cert.getSubjectX500Principal().getName() + " in " + certFile);
        }
    }

    private static PrivateKey decodeKey(final Path file, final byte[] der)
    {
        final PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (final String algorithm : KEY_ALGORITHMS)
        {
            try
            {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            }
            catch (final GeneralSecurityException notThisKind)
            {
                // try the next kind
            }
        }
        throw new TlsSetupException("key file " + file + ": the PKCS#8 key is none of " + KEY_ALGORITHMS +
            " (or is damaged)");
    }

    /** A PEM block: its label and its decoded bytes. */
    private record Block(String label, byte[] der)
    {
    }

    private static List<Block> blocks(final Path file)
    {
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        }
        catch (final IOException e)
        {
            throw new TlsSetupException("cannot read " + file + ": " + e, e);
        }
        final List<Block> blocks = new ArrayList<>();
        final Matcher m = BLOCK.matcher(text);
        while (m.find())
        {
            try
            {
                blocks.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
            }
            catch (final IllegalArgumentException e)
            {
                throw new TlsSetupException("file " + file + ": the '" + m.group(1) + "' block is not valid base64", e);
            }
        }
        return blocks;
    }
}
