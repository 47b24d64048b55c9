/** The cluster map: nodes, partitions, and which node holds which partition; JSON via Jackson. */
package io.rdmakv.common.cluster;
