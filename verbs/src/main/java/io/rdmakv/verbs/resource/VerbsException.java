package io.rdmakv.verbs.resource;

/**
 * A control-path failure of the verbs layer: opening a device, registering memory, creating or
 * connecting a queue pair, closing a resource in the wrong order. Carries the errno (0 when the
 * failure did not come from the OS or the device) and the call that failed. The data path never
 * throws it: post and poll return codes.
 */
public class VerbsException extends RuntimeException
{
    private final int errno;
    private final String call;

    public VerbsException(final String call, final int errno, final String message)
    {
        super(call + ": " + message + (errno != 0 ? " (" + Errno.name(errno) + ")" : ""));
        this.errno = errno;
        this.call = call;
    }

    public VerbsException(final String call, final String message, final Throwable cause)
    {
        super(call + ": " + message, cause);
        this.errno = 0;
        this.call = call;
    }

    public int errno()
    {
        return errno;
    }

    public String call()
    {
        return call;
    }
}
