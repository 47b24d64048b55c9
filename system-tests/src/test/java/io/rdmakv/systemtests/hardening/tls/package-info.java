/**
 * TLS on the bootstrap: the right CA and the wrong one, a node that requires client certificates, TLS on one
 * side only, and what an eavesdropper on the bootstrap reads (nothing of the token, rkeys or addresses).
 */
package io.rdmakv.systemtests.hardening.tls;
