package io.rdmakv.verbs;

/** One implementation of the verbs API. */
public interface Provider
{
    /** {@code tcp} or {@code ibverbs}. */
    String name();

    /** Null when this provider can open a device on this machine, else the reason it cannot. */
    String unavailableReason();

    Context open(VerbsConfig config);
}
