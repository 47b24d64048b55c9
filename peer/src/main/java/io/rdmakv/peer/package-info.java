/**
 * What the client and the node share to talk to a node: a {@link io.rdmakv.peer.NodeSession} (bootstrap
 * connection with HELLO and heartbeats, a connected queue pair over memory its owner lays out, with a {@link
 * io.rdmakv.peer.ControlArea} in it), its posting and waiting ({@link io.rdmakv.peer.SessionIo}, {@link
 * io.rdmakv.peer.SessionWaiter}, {@link io.rdmakv.peer.WaitStrategy}), its control calls ({@link
 * io.rdmakv.peer.ControlChannel}), the read lease its heartbeats keep ({@link io.rdmakv.peer.ReadLease}), and
 * chains of one-sided READ, WRITE and CAS into memory the caller registered ({@link
 * io.rdmakv.peer.RemoteReads}). The client's lanes build their data path on it; a node's copy, sweep and scrub
 * sessions use it bare. It depends on neither the client nor the server.
 */
package io.rdmakv.peer;
