/**
 * Socket peers for tests of a listener's deadlines: one that trickles bytes (TLS records too), a watch for the
 * close.
 */
package io.rdmakv.testsupport.net;
