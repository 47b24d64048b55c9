/**
 * TLS 1.3 for the bootstrap channel, the same on both ends: PEM files read into keys and certificates
 * ({@link io.rdmakv.common.tls.PemFiles}), the JDK's {@code SSLContext} built from them
 * ({@link io.rdmakv.common.tls.TlsContexts}), and how a first byte tells a TLS peer from a plain one.
 */
package io.rdmakv.common.tls;
