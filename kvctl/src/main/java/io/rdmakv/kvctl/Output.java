package io.rdmakv.kvctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintWriter;

/** Where kvctl writes: text for people, or one JSON document per command for scripts ({@code --json}). */
final class Output
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;

    Output(final PrintWriter out, final PrintWriter err, final boolean json)
    {
        this.out = out;
        this.err = err;
        this.json = json;
    }

    boolean json()
    {
        return json;
    }

    /** A fresh JSON object to fill. */
    ObjectNode object()
    {
        return MAPPER.createObjectNode();
    }

    /** Prints {@code text} in text mode, {@code document} in JSON mode. */
    void print(final String text, final JsonNode document)
    {
        if (json)
        {
            try
            {
                out.println(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(document));
            }
            catch (final JsonProcessingException e)
            {
                throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
            }
        }
        else
        {
            out.print(text);
        }
        out.flush();
    }

    /** Reports a failure: "kvctl: message" on stderr, and in JSON mode {"error", "exitCode"} on stdout. */
    int failure(final int exitCode, final String message)
    {
        err.println("kvctl: " + message);
        err.flush();
        if (json)
        {
            print("", object().put("error", message).put("exitCode", exitCode));
        }
        return exitCode;
    }
}
