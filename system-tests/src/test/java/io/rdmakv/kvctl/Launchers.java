package io.rdmakv.kvctl;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/** Running the repository's launchers (bin/kvserver, deploy/local-cluster.sh) from a test, on the test's class path. */
final class Launchers
{
    /** Light JVMs for child nodes: the machine running the tests may be small and busy. */
    static final String CHILD_JVM_OPTS = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private Launchers()
    {
    }

    /** The repository root: the first folder above the working directory that holds bin/kvserver. */
    static Path root()
    {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("bin/kvserver")))
        {
            p = p.getParent();
        }
        if (p == null)
        {
            throw new IllegalStateException("no bin/kvserver above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /**
     * The class path of this test JVM as a plain list: Surefire's own property when it sets one, else
     * java.class.path, expanding a manifest-only booter jar.
     */
    static String classPath() throws IOException
    {
        final String surefire = System.getProperty("surefire.test.class.path");
        if (surefire != null && !surefire.isBlank())
        {
            return surefire;
        }
        final String cp = System.getProperty("java.class.path");
        if (!cp.contains(File.pathSeparator) && cp.endsWith(".jar"))
        {
            try (JarFile jar = new JarFile(cp))
            {
                final Manifest manifest = jar.getManifest();
                final String entries = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                if (entries != null)
                {
                    final StringBuilder expanded = new StringBuilder();
                    for (final String entry : entries.trim().split("\\s+"))
                    {
                        expanded.append(expanded.isEmpty() ? "" : File.pathSeparator)
                            .append(Path.of(java.net.URI.create(entry)));
                    }
                    return expanded.toString();
                }
            }
        }
        return cp;
    }

    /**
     * Sets what bin/kvserver needs to run on the test's classes without building, and drops every other
     * RDMAKV_* variable of the developer's environment (it would configure the child nodes).
     */
    static void environment(final Map<String, String> env) throws IOException
    {
        env.keySet().removeIf(name -> name.startsWith("RDMAKV_"));
        env.put("RDMAKV_CLASSPATH", classPath());
        env.put("RDMAKV_JAVA_OPTS", CHILD_JVM_OPTS);
        env.put("JAVA_HOME", System.getProperty("java.home"));
    }
}
