package io.rdmakv.server.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A {@code kvserver} config file: one mapping, YAML or JSON ({@code .json} is read as JSON, anything
 * else as YAML), whose keys are the long option names without the dashes ({@code listen},
 * {@code memory}, {@code node-id}, ...) and whose values are single scalars, written as on the command
 * line ({@code memory: 4g}). Unknown keys, duplicate keys, lists, maps and empty values are refused with
 * the key's name.
 */
public final class ConfigFile
{
    private final Path path;
    private final Map<String, String> values;

    private ConfigFile(final Path path, final Map<String, String> values)
    {
        this.path = path;
        this.values = values;
    }

    /**
     * Reads and checks {@code path}.
     *
     * @param knownKeys the keys a file may set (long option names without the dashes)
     * @throws ConfigFileException naming the file and, where one is to blame, the key
     */
    public static ConfigFile load(final Path path, final Collection<String> knownKeys)
    {
        final boolean json = path.getFileName() != null &&
            path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        final ObjectMapper mapper = json ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        final JsonNode root;
        try
        {
            root = mapper.readTree(Files.readAllBytes(path));
        }
        catch (final JsonProcessingException e)
        {
            final JsonLocation where = e.getLocation();
            throw new ConfigFileException("config file " + path + " is not valid " + (json ? "JSON" : "YAML") + ": " +
                e.getOriginalMessage() + (where == null ? "" : " (line " + where.getLineNr() + ", column " +
                where.getColumnNr() + ")"));
        }
        catch (final IOException e)
        {
            throw new ConfigFileException("cannot read config file " + path + ": " + e);
        }
        final Map<String, String> values = new LinkedHashMap<>();
        if (root == null || root.isMissingNode() || root.isNull())
        {
            return new ConfigFile(path, values);
        }
        if (!root.isObject())
        {
            throw new ConfigFileException("config file " + path + " must be a mapping of option names to values, " +
                "not a " + root.getNodeType().toString().toLowerCase(Locale.ROOT));
        }
        for (final Map.Entry<String, JsonNode> entry : root.properties())
        {
            final String key = entry.getKey();
            final JsonNode value = entry.getValue();
            if (!knownKeys.contains(key))
            {
                throw new ConfigFileException("config file " + path + ": unknown key '" + key + "'; the keys are " +
                    "the long option names: " + String.join(", ", knownKeys));
            }
            if (value.isNull() || value.isMissingNode())
            {
                throw new ConfigFileException("config file " + path + ": key '" + key + "' has no value; expected " +
                    "a value as for --" + key);
            }
            if (value.isContainerNode())
            {
                throw new ConfigFileException("config file " + path + ": key '" + key + "' must be a single value " +
                    "as for --" + key + ", not a " + (value.isArray() ? "list" : "mapping"));
            }
            values.put(key, value.asText());
        }
        return new ConfigFile(path, values);
    }

    public Path path()
    {
        return path;
    }

    /** The value of {@code key} as text, or null when the file does not set it. */
    public String value(final String key)
    {
        return values.get(key);
    }

    /** Every key the file sets, in file order, with its value. */
    public Map<String, String> values()
    {
        return java.util.Collections.unmodifiableMap(values);
    }
}
