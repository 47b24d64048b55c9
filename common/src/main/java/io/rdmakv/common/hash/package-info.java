/** Key hashing: XXH64 and the placement of a key (partition, fingerprint, candidate bucket groups). */
package io.rdmakv.common.hash;
