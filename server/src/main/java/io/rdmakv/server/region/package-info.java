/**
 * A node's region: one page-aligned allocation (header, index, data area) registered as two memory regions
 * ({@link io.rdmakv.server.region.Region}), mapped for transparent huge pages on request
 * ({@link io.rdmakv.server.region.HugePages}), checked against the memory it may have before it is touched
 * ({@link io.rdmakv.server.region.MemoryBudget}), and whether grants are written through memory windows
 * ({@link io.rdmakv.server.region.MemoryWindowProbe}).
 */
package io.rdmakv.server.region;
