package io.rdmakv.ycsb;

/** An update lost the race for its record more times than {@code rdmakv.update.retries} allows. */
public final class UpdateConflictException extends RuntimeException
{
    public UpdateConflictException(final String key, final int conflicts)
    {
        super("update of '" + key + "' gave up after " + conflicts + " version conflicts");
    }
}
