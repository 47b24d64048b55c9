package io.rdmakv.server;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's packages have no cycle: the JDK's {@code jdeps}, run in this JVM over the compiled classes,
 * lists which {@code io.rdmakv.server} package depends on which, and every group of packages that depend on
 * each other round a loop fails the build, named with the arrows between them. A package that needs the node
 * names what it needs in a small interface of its own ({@code cluster.MemberNode}, {@code metrics.MeteredNode})
 * instead of depending on the root package that assembles it. The same check by hand is in
 * docs/development.md.
 */
class PackageCyclesTest
{
    private static final String PREFIX = "io.rdmakv.server";
    /** {@code   io.rdmakv.server.cluster   -> io.rdmakv.server.config   classes}: one package arrow. */
    private static final Pattern ARROW =
        Pattern.compile("^\\s+(io\\.rdmakv\\.server(?:\\.[\\w.]+)?)\\s+->\\s+(io\\.rdmakv\\.server(?:\\.[\\w.]+)?)\\s");

    @Test
    void theServersPackagesDependOnEachOtherWithoutACycle() throws Exception
    {
        final Map<String, Set<String>> arrows = packageArrows(classesOf(KvServer.class));
        // the check reads what it should: the root assembles the node from the config package, among others
        assertTrue(arrows.getOrDefault(PREFIX, Set.of()).contains(PREFIX + ".config"),
            "jdeps did not report io.rdmakv.server -> io.rdmakv.server.config: " + arrows);
        final List<Set<String>> cycles = cycles(arrows);
        assertTrue(cycles.isEmpty(), "package cycles in the server (each a set of packages that reach each " +
            "other; break them with a small interface in the lower package, see docs/development.md):\n" +
            describe(cycles, arrows));
    }

    @Test
    void aLoopOfPackagesIsFoundAndOnlyTheLoop()
    {
        final Map<String, Set<String>> arrows = new TreeMap<>();
        arrows.put("a", Set.of("b", "d"));
        arrows.put("b", Set.of("c"));
        arrows.put("c", Set.of("a", "d"));
        arrows.put("d", Set.of("e"));
        assertEquals(List.of(Set.of("a", "b", "c")), cycles(arrows));
        arrows.put("e", Set.of("d"));
        assertEquals(List.of(Set.of("a", "b", "c"), Set.of("d", "e")), cycles(arrows));
        assertEquals(List.of(), cycles(Map.of("a", Set.of("b"), "b", Set.of("c"))));
    }

    /** The class-path entry (directory or jar) {@code type} was loaded from. */
    private static Path classesOf(final Class<?> type) throws URISyntaxException
    {
        final Path classes = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.exists(classes), "no classes at " + classes);
        return classes;
    }

    /** {@code jdeps -verbose:package} over {@code classes}: each server package and the server packages it uses. */
    static Map<String, Set<String>> packageArrows(final Path classes)
    {
        final ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() ->
            new AssertionError("this JVM has no jdeps (module jdk.jdeps): run the tests on a JDK"));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exit = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package",
            "-e", "io\\.rdmakv\\.server(\\..*)?", classes.toString());
        assertEquals(0, exit, "jdeps failed:\n" + out + err);
        final Map<String, Set<String>> arrows = new TreeMap<>();
        for (final String line : out.toString().split("\\R"))
        {
            final Matcher m = ARROW.matcher(line);
            if (m.find() && !m.group(1).equals(m.group(2)))
            {
                arrows.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
            }
        }
        return arrows;
    }

    /**
     * The strongly connected components of more than one package (Tarjan), each sorted, in the order of their
     * first package.
     */
    static List<Set<String>> cycles(final Map<String, Set<String>> arrows)
    {
        final Set<String> nodes = new TreeSet<>(arrows.keySet());
        arrows.values().forEach(nodes::addAll);
        final Map<String, Integer> index = new HashMap<>();
        final Map<String, Integer> low = new HashMap<>();
        final Deque<String> stack = new ArrayDeque<>();
        final Set<String> onStack = new TreeSet<>();
        final List<Set<String>> found = new ArrayList<>();
        for (final String node : nodes)
        {
            if (!index.containsKey(node))
            {
                connect(node, arrows, index, low, stack, onStack, found);
            }
        }
        found.sort((x, y) -> ((TreeSet<String>)x).first().compareTo(((TreeSet<String>)y).first()));
        return found;
    }

    private static void connect(final String node, final Map<String, Set<String>> arrows,
        final Map<String, Integer> index, final Map<String, Integer> low, final Deque<String> stack,
        final Set<String> onStack, final List<Set<String>> found)
    {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (final String next : arrows.getOrDefault(node, Set.of()))
        {
            if (!index.containsKey(next))
            {
                connect(next, arrows, index, low, stack, onStack, found);
                low.put(node, Math.min(low.get(node), low.get(next)));
            }
            else if (onStack.contains(next))
            {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node)))
        {
            final Set<String> component = new TreeSet<>();
            String member;
            do
            {
                member = stack.pop();
                onStack.remove(member);
                component.add(member);
            }
            while (!member.equals(node));
            if (component.size() > 1)
            {
                found.add(component);
            }
        }
    }

    private static String describe(final List<Set<String>> cycles, final Map<String, Set<String>> arrows)
    {
        final StringBuilder text = new StringBuilder();
        for (final Set<String> cycle : cycles)
        {
            text.append("  ").append(cycle).append('\n');
            for (final String from : cycle)
            {
                for (final String to : arrows.getOrDefault(from, Set.of()))
                {
                    if (cycle.contains(to))
                    {
                        text.append("    ").append(from).append(" -> ").append(to).append('\n');
                    }
                }
            }
        }
        return text.toString();
    }
}
