package io.rdmakv.common.tls;

/** A certificate, key or CA file that cannot be used, with the file and the reason in the message. */
public final class TlsSetupException extends IllegalArgumentException
{
    public TlsSetupException(final String message)
    {
        super(message);
    }

    public TlsSetupException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
