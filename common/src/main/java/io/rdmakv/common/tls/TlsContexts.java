package io.rdmakv.common.tls;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Builds the JDK's {@link SSLContext} for the bootstrap channel from PEM files: TLS 1.3 only, certificates
 * checked against the CA certificates given (nothing from the JDK's default trust store), with or without
 * a certificate of one's own.
 */
public final class TlsContexts
{
    /** The one protocol version spoken. */
    public static final String PROTOCOL = "TLSv1.3";
    /**
     * The first byte of every TLS record that opens a connection (a handshake record holding ClientHello).
     * No control message starts with it: their first byte is the low byte of a small type code.
     */
    public static final int HANDSHAKE_RECORD = 0x16;

    private static final char[] NO_PASSWORD = new char[0];

    private TlsContexts()
    {
    }

    /**
     * A context that presents {@code certChain} (leaf first) with {@code key}, and trusts the CA
     * certificates in {@code trustedCa} to vouch for peers (null: no peer certificates expected).
     */
    public static SSLContext withIdentity(final Path certChain, final Path key, final Path trustedCa)
    {
        final List<X509Certificate> chain = PemFiles.certificates(certChain);
        final PrivateKey privateKey = PemFiles.privateKey(key);
        PemFiles.checkPair(privateKey, chain.get(0), key, certChain);
        return context(keyManagers(privateKey, chain), trustedCa == null ? null : trustManagers(trustedCa));
    }

    /** A context without a certificate of its own that trusts the CA certificates in {@code trustedCa}. */
    public static SSLContext trusting(final Path trustedCa)
    {
        return context(null, trustManagers(trustedCa));
    }

    /** TLS 1.3 only; {@code needClientAuth} on a server demands a client certificate. */
    public static SSLParameters parameters(final SSLContext context, final boolean needClientAuth)
    {
        final SSLParameters parameters = context.getDefaultSSLParameters();
        parameters.setProtocols(new String[] {PROTOCOL});
        parameters.setNeedClientAuth(needClientAuth);
        return parameters;
    }

    private static SSLContext context(final KeyManager[] keys, final TrustManager[] trust)
    {
        try
        {
            final SSLContext context = SSLContext.getInstance(PROTOCOL);
            context.init(keys, trust, null);
            return context;
        }
        catch (final GeneralSecurityException e)
        {
            throw new IllegalStateException("this JDK cannot set up " + PROTOCOL + ": " + e.getMessage(), e);
        }
    }

    private static KeyManager[] keyManagers(final PrivateKey key, final List<X509Certificate> chain)
    {
        try
        {
            final KeyStore store = emptyStore();
            store.setKeyEntry("identity", key, NO_PASSWORD, chain.toArray(new X509Certificate[0]));
            final KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, NO_PASSWORD);
            return factory.getKeyManagers();
        }
        catch (final GeneralSecurityException e)
        {
            throw new TlsSetupException("cannot use the key and certificate " +
                chain.get(0).getSubjectX500Principal().getName() + ": " + e.getMessage(), e);
        }
    }

    private static TrustManager[] trustManagers(final Path caFile)
    {
        final List<X509Certificate> cas = PemFiles.certificates(caFile);
        try
        {
            final KeyStore store = emptyStore();
            for (int i = 0; i < cas.size(); i++)
            {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            final TrustManagerFactory factory =
                TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        }
        catch (final GeneralSecurityException e)
        {
            throw new TlsSetupException("cannot trust the certificates in " + caFile + ": " + e.getMessage(), e);
        }
    }

    private static KeyStore emptyStore() throws GeneralSecurityException
    {
        final KeyStore store = KeyStore.getInstance("PKCS12");
        try
        {
            store.load(null, null);
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("cannot create an empty key store", e);
        }
        return store;
    }
}
