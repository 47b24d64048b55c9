/** Space: FREE only of one's own space, quotas, a bounded control plane, no leak when a client idles. */
package io.rdmakv.systemtests.hardening.space;
