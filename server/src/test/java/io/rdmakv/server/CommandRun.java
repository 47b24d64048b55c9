package io.rdmakv.server;

import io.rdmakv.server.config.ServerConfig;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/** One parse of the kvserver command line with a start action that only records the configuration. */
record CommandRun(int code, String out, String err, ServerConfig config)
{
    static CommandRun of(final Map<String, String> environment, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final AtomicReference<ServerConfig> seen = new AtomicReference<>();
        final int code = KvServerCommand.execute(new PrintWriter(out), new PrintWriter(err), environment, config ->
        {
            seen.set(config);
            return 0;
        }, args);
        return new CommandRun(code, out.toString(), err.toString(), seen.get());
    }

    static CommandRun of(final String... args)
    {
        return of(Map.of(), args);
    }
}
