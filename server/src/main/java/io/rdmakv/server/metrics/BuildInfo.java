package io.rdmakv.server.metrics;

import io.rdmakv.common.layout.RegionHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** What this build is: the project version (from the build), the region layout and protocol versions. */
public final class BuildInfo
{
    /** The Maven project version, or "development" when the build did not record it. */
    public static final String VERSION = version();
    public static final int LAYOUT_VERSION = RegionHeaderDescriptor.LAYOUT_VERSION;
    public static final int PROTOCOL_VERSION = MessageHeaderDescriptor.PROTOCOL_VERSION;

    private BuildInfo()
    {
    }

    private static String version()
    {
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties"))
        {
            if (in == null)
            {
                return "development";
            }
            final Properties p = new Properties();
            p.load(in);
            final String v = p.getProperty("version", "");
            return v.isEmpty() || v.startsWith("${") ? "development" : v;
        }
        catch (final IOException e)
        {
            return "development";
        }
    }
}
