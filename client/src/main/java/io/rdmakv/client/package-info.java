/** KvClient: the one-sided GET/PUT/DELETE protocols over RDMA, routing across nodes, and kvctl. */
package io.rdmakv.client;
