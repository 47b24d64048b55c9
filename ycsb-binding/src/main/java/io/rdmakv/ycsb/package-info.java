/** The YCSB binding: a site.ycsb.DB over KvClient. */
package io.rdmakv.ycsb;
