package io.rdmakv.kvctl;

import io.rdmakv.client.Versioned;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** {@code kvctl get|put|delete}: one key, as UTF-8 text. */
final class KeyCommands
{
    private KeyCommands()
    {
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Command(name = "get", description = "Prints the value of KEY (exit 1 when absent).")
    static final class Get implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        public Integer call()
        {
            return parent.withClient((client, out) ->
            {
                final Versioned v = client.getVersioned(bytes(key));
                if (v == null)
                {
                    return out.failure(KvCtl.NOT_FOUND, "key not found: " + key);
                }
                final String value = new String(v.value(), StandardCharsets.UTF_8);
                out.print(value + "\n", out.object().put("key", key).put("value", value).put("version", v.version()));
                return KvCtl.OK;
            });
        }
    }

    @Command(name = "put", description = "Sets KEY to VALUE.")
    static final class Put implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Parameters(index = "1", paramLabel = "VALUE")
        String value;

        @Override
        public Integer call()
        {
            return parent.withClient((client, out) ->
            {
                client.put(bytes(key), bytes(value));
                out.print("OK\n", out.object().put("key", key).put("ok", true));
                return KvCtl.OK;
            });
        }
    }

    @Command(name = "delete", description = "Removes KEY (exit 1 when absent).")
    static final class Delete implements Callable<Integer>
    {
        @CommandLine.ParentCommand
        KvCtl parent;

        @Parameters(index = "0", paramLabel = "KEY")
        String key;

        @Override
        public Integer call()
        {
            return parent.withClient((client, out) ->
            {
                if (!client.delete(bytes(key)))
                {
                    return out.failure(KvCtl.NOT_FOUND, "key not found: " + key);
                }
                out.print("DELETED\n", out.object().put("key", key).put("deleted", true));
                return KvCtl.OK;
            });
        }
    }
}
