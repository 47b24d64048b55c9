package io.rdmakv.server;

import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly stop that ends with exit code 0 (a plain shutdown hook
 * would exit with 143).
 */
final class ShutdownSignals
{
    private ShutdownSignals()
    {
    }

    static void onTerminate(final Runnable action)
    {
        for (final String name : new String[] {"TERM", "INT"})
        {
            try
            {
                Signal.handle(new Signal(name), signal -> action.run());
            }
            catch (final IllegalArgumentException e)
            {
                Runtime.getRuntime().addShutdownHook(new Thread(action));
            }
        }
    }
}
