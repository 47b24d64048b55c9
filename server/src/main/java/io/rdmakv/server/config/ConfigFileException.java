package io.rdmakv.server.config;

/** A config file that cannot be read or that sets what it may not; the message is one line for the user. */
public final class ConfigFileException extends RuntimeException
{
    public ConfigFileException(final String message)
    {
        super(message);
    }
}
