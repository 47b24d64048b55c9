package io.rdmakv.server.cluster.map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;

/**
 * Strict JSON for the znodes: unknown, repeated or missing fields and trailing content are refused with a
 * message naming the field, because a znode another version of the node wrote wrongly should stop the
 * reader, not be half understood.
 */
final class ZkJson
{
    static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();

    private ZkJson()
    {
    }

    static ObjectNode object()
    {
        return MAPPER.createObjectNode();
    }

    static byte[] bytes(final JsonNode node)
    {
        try
        {
            return MAPPER.writeValueAsBytes(node);
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalStateException("cannot write a JSON tree", e);
        }
    }

    /** Whether {@code json} is a JSON object with the field {@code field} (false for anything unreadable). */
    static boolean hasField(final byte[] json, final String field)
    {
        try
        {
            final JsonNode root = MAPPER.readTree(json);
            return root != null && root.isObject() && root.has(field);
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    /** Reads {@code json} as an object with exactly the fields in {@code required} plus any of {@code optional}. */
    static JsonNode object(final byte[] json, final String what, final Set<String> required, final Set<String> optional)
    {
        final JsonNode root;
        try
        {
            root = MAPPER.readTree(json);
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException(what + " is not valid JSON: " +
                (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
        if (root == null || !root.isObject())
        {
            throw new IllegalArgumentException(what + " must be a JSON object, not " +
                (json == null ? "nothing" : new String(json, StandardCharsets.UTF_8)));
        }
        for (final Iterator<String> names = root.fieldNames(); names.hasNext(); )
        {
            final String name = names.next();
            if (!required.contains(name) && !optional.contains(name))
            {
                throw new IllegalArgumentException(what + ": unknown field \"" + name + "\"");
            }
        }
        for (final String name : required)
        {
            if (!root.has(name))
            {
                throw new IllegalArgumentException(what + ": field \"" + name + "\" is missing");
            }
        }
        return root;
    }

    static long longField(final JsonNode node, final String field, final String what)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong())
        {
            throw new IllegalArgumentException(what + ": \"" + field + "\" must be an integer");
        }
        return value.longValue();
    }

    static int intField(final JsonNode node, final String field, final String what)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt())
        {
            throw new IllegalArgumentException(what + ": \"" + field + "\" must be an integer");
        }
        return value.intValue();
    }

    static String textField(final JsonNode node, final String field, final String what)
    {
        final JsonNode value = node.get(field);
        if (value == null || !value.isTextual())
        {
            throw new IllegalArgumentException(what + ": \"" + field + "\" must be a string");
        }
        return value.textValue();
    }
}
