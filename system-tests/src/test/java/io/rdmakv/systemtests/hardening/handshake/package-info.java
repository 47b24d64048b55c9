/**
 * Connection set-up against hostile or broken peers: idle and trickling connections on every port a node
 * opens, HELLOs whose queue pair endpoint names another host, forged queue pair connects.
 */
package io.rdmakv.systemtests.hardening.handshake;
