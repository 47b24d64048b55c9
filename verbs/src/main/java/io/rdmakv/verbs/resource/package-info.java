/**
 * What every verbs object shares, whatever its provider: its life ({@link io.rdmakv.verbs.resource.VerbsResource}:
 * open until closed, children closed before their parents, written once for every provider) and how the control
 * path fails ({@link io.rdmakv.verbs.resource.VerbsException}, with the {@link io.rdmakv.verbs.resource.Errno} the
 * OS or the device gave).
 */
package io.rdmakv.verbs.resource;
