/** Certificates made at test time (a CA, node and client certificates as PEM files), never committed. */
package io.rdmakv.testsupport.tls;
