/** Everything the server and its clients must agree on, byte for byte. */
package io.rdmakv.common;
