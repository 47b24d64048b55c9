package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.layout.CStruct;
import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.ibverbs.layout.IbvCq;
import io.rdmakv.verbs.ibverbs.layout.IbvMw;
import io.rdmakv.verbs.ibverbs.layout.IbvQp;
import io.rdmakv.verbs.ibverbs.layout.IbvQpAttr;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.abi.IbvRecvWr;
import io.rdmakv.verbs.abi.IbvSendWr;
import io.rdmakv.verbs.abi.IbvSge;
import io.rdmakv.verbs.abi.IbvWc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checks every struct layout and constant the bindings use against the installed
 * {@code <infiniband/verbs.h>}: compiles {@code src/test/c/verbs_layout.c} with gcc, runs it, and
 * compares its {@code name=value} lines with the Java descriptors of {@code io.rdmakv.verbs.ibverbs.layout}
 * (every class with a {@code LAYOUT} field), the shared ones in {@code io.rdmakv.verbs.abi}, and the constant
 * classes.
 * Needs gcc and libibverbs-dev (scripts/setup.sh installs them), no RDMA device.
 */
class IbverbsLayoutTest
{
    private static final String SETUP_HINT = "run scripts/setup.sh (it installs gcc and libibverbs-dev)";

    /** The C program's output: {@code sizeof(x)}, {@code alignof(x)}, {@code offsetof(x.m)}, {@code const(g.N)}. */
    private static Map<String, Long> header;

    @BeforeAll
    static void compileAndRunTheCProgram() throws Exception
    {
        header = compileAndRun("verbs_layout", "infiniband/verbs.h", SETUP_HINT);
    }

    /**
     * Compiles {@code src/test/c/<program>.c} with gcc, runs it and parses its {@code name=value} lines
     * (also written to {@code target/verbs-layout/<program>.txt}). Fails the test, naming {@code hint}, when
     * gcc or the header {@code include} is missing.
     */
    static Map<String, Long> compileAndRun(final String program, final String include, final String hint)
        throws IOException, InterruptedException
    {
        final Path basedir = Path.of(System.getProperty("basedir", "."));
        final Path source = basedir.resolve("src/test/c/" + program + ".c");
        assertTrue(Files.isRegularFile(source), "missing " + source.toAbsolutePath());
        final Path outDir = basedir.resolve("target/verbs-layout");
        Files.createDirectories(outDir);
        final Path binary = outDir.resolve(program);

        final ProcessResult gcc;
        try
        {
            gcc = run(List.of("gcc", "-std=c11", "-Wall", "-Werror", "-o", binary.toString(), source.toString()));
        }
        catch (final IOException e)
        {
            return fail("gcc cannot be run (" + e.getMessage() + "): " + hint);
        }
        if (gcc.exitCode != 0)
        {
            if (gcc.output.contains(include))
            {
                fail("<" + include + "> is missing: " + hint + "\n" + gcc.output);
            }
            fail("gcc failed to compile " + source + " (exit " + gcc.exitCode + "; if gcc or the headers are " +
                "missing or broken, " + hint + "):\n" + gcc.output);
        }
        final ProcessResult layout = run(List.of(binary.toString()));
        assertEquals(0, layout.exitCode, program + " failed:\n" + layout.output);
        Files.writeString(outDir.resolve(program + ".txt"), layout.output);
        return parse(layout.output);
    }

    private record ProcessResult(int exitCode, String output)
    {
    }

    private static ProcessResult run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            fail(String.join(" ", command) + " did not finish in 60 s");
        }
        return new ProcessResult(process.exitValue(), output);
    }

    static Map<String, Long> parse(final String output)
    {
        final Map<String, Long> values = new LinkedHashMap<>();
        for (final String line : output.split("\n"))
        {
            if (line.isBlank())
            {
                continue;
            }
            final int eq = line.lastIndexOf('=');
            assertTrue(eq > 0, "not a name=value line: " + line);
            values.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1).trim()));
        }
        return values;
    }

    // ---------------------------------------------------------------- struct descriptors (ibverbs.layout)

    /**
     * The C struct descriptors of {@code <infiniband/verbs.h>} (and libc): every class of the layout package
     * (main code) with a static {@code LAYOUT} and no {@code HEADER} field naming another header.
     */
    static Map<String, GroupLayout> descriptors() throws IOException, URISyntaxException, ReflectiveOperationException
    {
        return descriptors(null);
    }

    /**
     * The descriptors checked against {@code header}: the classes of the layout package with a static
     * {@code LAYOUT} whose static {@code HEADER} equals it ({@code null}: that have none, the verbs.h ones).
     */
    static Map<String, GroupLayout> descriptors(final String header)
        throws IOException, URISyntaxException, ReflectiveOperationException
    {
        final Path classes = Path.of(IbvQpAttr.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final Path dir = classes.resolve(IbvQpAttr.class.getPackageName().replace('.', '/'));
        final Map<String, GroupLayout> layouts = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path file : files.filter(f -> f.toString().endsWith(".class")).toList())
            {
                final String simple = file.getFileName().toString().replace(".class", "");
                if (simple.contains("$"))
                {
                    continue;
                }
                final Class<?> type = Class.forName(IbvQpAttr.class.getPackageName() + "." + simple, false,
                    IbverbsLayoutTest.class.getClassLoader());
                final Field field;
                try
                {
                    field = type.getDeclaredField("LAYOUT");
                }
                catch (final NoSuchFieldException e)
                {
                    continue;
                }
                assertTrue(Modifier.isStatic(field.getModifiers()), type + ".LAYOUT must be static");
                if (!Objects.equals(header, headerOf(type)))
                {
                    continue;
                }
                field.setAccessible(true);
                final GroupLayout layout = (GroupLayout)field.get(null);
                assertTrue(layout.name().isPresent(), type + ".LAYOUT has no name (the C struct's)");
                layouts.put(layout.name().get(), layout);
            }
        }
        return layouts;
    }

    private static String headerOf(final Class<?> type) throws IllegalAccessException
    {
        try
        {
            return (String)type.getDeclaredField("HEADER").get(null);
        }
        catch (final NoSuchFieldException e)
        {
            return null;
        }
    }

    /**
     * Every mismatch between {@code layout} (named after its C struct) and the header: its size and
     * alignment, each named member's offset and size (recursing into nested groups that are not
     * descriptors of their own), and every member path the C program printed for it.
     */
    static List<String> compare(final GroupLayout layout, final Map<String, Long> header, final List<GroupLayout> others)
    {
        final List<String> problems = new ArrayList<>();
        final String struct = layout.name().orElseThrow();
        expect(problems, header, "sizeof(" + struct + ")", layout.byteSize());
        expect(problems, header, "alignof(" + struct + ")", layout.byteAlignment());
        walk(problems, header, others, layout, layout, struct, "");
        final String prefix = "offsetof(" + struct + ".";
        for (final String key : header.keySet())
        {
            if (key.startsWith(prefix))
            {
                final String path = key.substring(prefix.length(), key.length() - 1);
                try
                {
                    final long offset = CStruct.offset(layout, path);
                    final long size = CStruct.member(layout, path).byteSize();
                    expect(problems, header, key, offset);
                    expect(problems, header, "sizeof(" + struct + "." + path + ")", size);
                }
                catch (final IllegalArgumentException e)
                {
                    problems.add(struct + "." + path + ": in the header but not in the Java layout");
                }
            }
        }
        return List.copyOf(new LinkedHashSet<>(problems));
    }

    private static void walk(
        final List<String> problems, final Map<String, Long> header, final List<GroupLayout> others,
        final GroupLayout top, final GroupLayout group, final String struct, final String prefix)
    {
        for (final MemoryLayout member : group.memberLayouts())
        {
            if (member instanceof PaddingLayout)
            {
                continue;
            }
            if (member.name().isEmpty())
            {
                problems.add(struct + "." + prefix + "?: unnamed member " + member);
                continue;
            }
            final String path = prefix + member.name().get();
            final String key = "offsetof(" + struct + "." + path + ")";
            if (!header.containsKey(key))
            {
                problems.add(struct + "." + path + ": named in the Java layout but the C program does not print it");
                continue;
            }
            expect(problems, header, key, CStruct.offset(top, path));
            expect(problems, header, "sizeof(" + struct + "." + path + ")", member.byteSize());
            if (member instanceof GroupLayout nested && !isDescriptor(nested, others))
            {
                walk(problems, header, others, top, nested, struct, path + ".");
            }
        }
    }

    private static boolean isDescriptor(final GroupLayout nested, final List<GroupLayout> descriptors)
    {
        for (final GroupLayout d : descriptors)
        {
            if (d.withoutName().equals(nested.withoutName()))
            {
                return true;
            }
        }
        return false;
    }

    private static void expect(final List<String> problems, final Map<String, Long> header, final String key, final long java)
    {
        final Long c = header.get(key);
        if (c == null)
        {
            problems.add(key + ": not printed by the C program");
        }
        else if (c != java)
        {
            problems.add(key + ": header says " + c + ", Java says " + java);
        }
    }

    @Test
    void everyStructDescriptorMatchesTheHeader() throws Exception
    {
        final Map<String, GroupLayout> layouts = descriptors();
        assertTrue(layouts.keySet().containsAll(List.of("ibv_qp_attr", "ibv_context", "ibv_port_attr", "ibv_ah_attr",
            "ibv_device_attr", "ibv_gid_entry", "ibv_qp_init_attr")), "descriptors found: " + layouts.keySet());
        final List<GroupLayout> all = List.copyOf(layouts.values());
        final List<String> problems = new ArrayList<>();
        for (final GroupLayout layout : all)
        {
            problems.addAll(compare(layout, header, all));
        }
        assertTrue(problems.isEmpty(), "Java layouts disagree with <infiniband/verbs.h>:\n  " +
            String.join("\n  ", problems));
    }

    @Test
    void everyStructTheCProgramPrintsHasADescriptor() throws Exception
    {
        final Map<String, GroupLayout> layouts = descriptors();
        final List<String> missing = new ArrayList<>();
        for (final String key : header.keySet())
        {
            if (key.startsWith("sizeof(") && !key.contains("."))
            {
                final String struct = key.substring("sizeof(".length(), key.length() - 1);
                if (!layouts.containsKey(struct) && !SHARED.containsKey(struct))
                {
                    missing.add(struct);
                }
            }
        }
        assertTrue(missing.isEmpty(), "structs printed by verbs_layout.c without a Java descriptor: " + missing);
    }

    @Test
    void aShiftedMemberIsCaughtAndNamed() throws Exception
    {
        final List<GroupLayout> all = List.copyOf(descriptors().values());
        final StructLayout shifted = CStruct.struct("ibv_qp_cap",
            ValueLayout.JAVA_INT.withName("max_send_wr"),
            ValueLayout.JAVA_INT.withName("max_recv_wr"),
            MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_INT.withName("max_send_sge"),
            ValueLayout.JAVA_INT.withName("max_recv_sge"),
            ValueLayout.JAVA_INT.withName("max_inline_data"));
        final List<String> problems = compare(shifted, header, all);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("offsetof(ibv_qp_cap.max_send_sge)")), problems::toString);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("sizeof(ibv_qp_cap)")), problems::toString);
    }

    @Test
    void inlineVerbPointersAreWhereTheHeaderPutsThem()
    {
        assertEquals(header.get("offsetof(ibv_context.ops.poll_cq)"), IbvContextStruct.OPS_POLL_CQ);
        assertEquals(header.get("offsetof(ibv_context.ops.req_notify_cq)"), IbvContextStruct.OPS_REQ_NOTIFY_CQ);
        assertEquals(header.get("offsetof(ibv_context.ops.post_send)"), IbvContextStruct.OPS_POST_SEND);
        assertEquals(header.get("offsetof(ibv_context.ops.post_recv)"), IbvContextStruct.OPS_POST_RECV);
        assertEquals(header.get("offsetof(ibv_context.ops.alloc_mw)"), IbvContextStruct.OPS_ALLOC_MW);
        assertEquals(header.get("offsetof(ibv_context.ops.dealloc_mw)"), IbvContextStruct.OPS_DEALLOC_MW);
        assertEquals(header.get("offsetof(ibv_mw.context)"), IbvMw.CONTEXT);
        assertEquals(header.get("offsetof(ibv_mw.rkey)"), IbvMw.RKEY);
        assertEquals(header.get("offsetof(ibv_cq.context)"), IbvCq.CONTEXT);
        assertEquals(header.get("offsetof(ibv_qp.context)"), IbvQp.CONTEXT);
    }

    // ---------------------------------------------------------------- shared descriptors (io.rdmakv.verbs.abi)

    private static final Map<String, Class<?>> SHARED = Map.of(
        "ibv_send_wr", IbvSendWr.class, "ibv_recv_wr", IbvRecvWr.class, "ibv_sge", IbvSge.class, "ibv_wc", IbvWc.class);

    /**
     * The C member path of an abi constant: {@code RDMA_RKEY_OFFSET} of ibv_send_wr is {@code wr.rdma.rkey},
     * {@code BIND_MW_MR_OFFSET} is {@code bind_mw.bind_info.mr}, {@code BIND_MW_ACCESS_OFFSET} is
     * {@code bind_mw.bind_info.mw_access_flags}.
     */
    private static String memberPath(final String struct, final String constant)
    {
        final String member = constant.substring(0, constant.length() - "_OFFSET".length()).toLowerCase();
        if (struct.equals("ibv_send_wr") && member.startsWith("rdma_"))
        {
            return "wr.rdma." + member.substring("rdma_".length());
        }
        if (struct.equals("ibv_send_wr") && member.startsWith("atomic_"))
        {
            return "wr.atomic." + member.substring("atomic_".length());
        }
        if (struct.equals("ibv_send_wr") && member.startsWith("bind_mw_"))
        {
            final String field = member.substring("bind_mw_".length());
            return field.equals("mw") || field.equals("rkey") ? "bind_mw." + field :
                "bind_mw.bind_info." + (field.equals("access") ? "mw_access_flags" : field);
        }
        return member;
    }

    @Test
    void sharedWorkRequestAndCompletionLayoutsMatchTheHeader() throws IllegalAccessException
    {
        final List<String> problems = new ArrayList<>();
        for (final Map.Entry<String, Class<?>> e : SHARED.entrySet())
        {
            final String struct = e.getKey();
            final List<String> javaPaths = new ArrayList<>();
            for (final Field field : e.getValue().getFields())
            {
                if (!Modifier.isStatic(field.getModifiers()) || field.getType() != int.class)
                {
                    continue;
                }
                final String name = field.getName();
                final long value = field.getInt(null);
                final String where = e.getValue().getSimpleName() + "." + name;
                if (name.equals("SIZE"))
                {
                    expect(problems, header, "sizeof(" + struct + ")", value);
                }
                else if (name.equals("ALIGNMENT"))
                {
                    expect(problems, header, "alignof(" + struct + ")", value);
                }
                else if (name.endsWith("_OFFSET"))
                {
                    final String path = memberPath(struct, name);
                    javaPaths.add(path);
                    final Long c = header.get("offsetof(" + struct + "." + path + ")");
                    if (c == null)
                    {
                        problems.add(where + " (" + struct + "." + path + "): not printed by verbs_layout.c");
                    }
                    else if (c != value)
                    {
                        problems.add(where + " (" + struct + "." + path + "): header says " + c + ", Java says " + value);
                    }
                }
                else
                {
                    problems.add(where + ": not a SIZE, ALIGNMENT or *_OFFSET constant; teach this test about it");
                }
            }
            final String prefix = "offsetof(" + struct + ".";
            for (final String key : header.keySet())
            {
                if (key.startsWith(prefix) && !javaPaths.contains(key.substring(prefix.length(), key.length() - 1)))
                {
                    problems.add(key + ": printed by verbs_layout.c but " + e.getValue().getSimpleName() + " has no constant");
                }
            }
        }
        assertTrue(problems.isEmpty(), "io.rdmakv.verbs.abi disagrees with <infiniband/verbs.h>:\n  " +
            String.join("\n  ", problems));
    }

    // ---------------------------------------------------------------- constants

    /** A C enum (or group) → the Java class holding it and the prefix its Java names drop. */
    private record ConstantGroup(Class<?> type, String cPrefix)
    {
    }

    private static final Map<String, ConstantGroup> API_GROUPS = Map.of(
        "ibv_wr_opcode", new ConstantGroup(Opcode.class, "IBV_WR_"),
        "ibv_send_flags", new ConstantGroup(SendFlags.class, "IBV_SEND_"),
        "ibv_access_flags", new ConstantGroup(AccessFlags.class, "IBV_ACCESS_"),
        "ibv_wc_opcode", new ConstantGroup(WcOpcode.class, "IBV_WC_"),
        "ibv_wc_status", new ConstantGroup(WcStatus.class, "IBV_WC_"),
        "ibv_qp_state", new ConstantGroup(QpState.class, "IBV_QPS_"),
        "errno", new ConstantGroup(Errno.class, ""));

    /** Java constants that are combinations, not header values: checked by what they combine. */
    private static final Map<String, Long> DERIVED = Map.of(
        "AccessFlags.ALL_REMOTE", (long)(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC));

    @Test
    void everyConstantMatchesTheHeader() throws ReflectiveOperationException
    {
        final List<String> problems = new ArrayList<>();
        final Map<String, Long> javaSeen = new TreeMap<>();
        for (final Map.Entry<String, Long> e : header.entrySet())
        {
            if (!e.getKey().startsWith("const("))
            {
                continue;
            }
            final String qualified = e.getKey().substring("const(".length(), e.getKey().length() - 1);
            final String group = qualified.substring(0, qualified.indexOf('.'));
            final String cName = qualified.substring(group.length() + 1);
            final long c = e.getValue();
            final ConstantGroup api = API_GROUPS.get(group);
            final Class<?> type = api != null ? api.type() : IbvConstants.class;
            final String javaName = api != null ? cName.substring(api.cPrefix().length()) : cName;
            final String where = type.getSimpleName() + "." + javaName;
            final Long java = javaValue(type, javaName);
            if (java == null)
            {
                problems.add(cName + " (" + group + "): " + where + " does not exist");
                continue;
            }
            javaSeen.put(where, java);
            if (java != c)
            {
                problems.add(cName + " (" + group + "): header says " + c + ", " + where + " says " + java);
            }
        }
        final List<Class<?>> classes = new ArrayList<>(API_GROUPS.values().stream().map(ConstantGroup::type).toList());
        classes.add(IbvConstants.class);
        for (final Class<?> type : classes)
        {
            for (final String name : javaNames(type))
            {
                final String where = type.getSimpleName() + "." + name;
                if (!javaSeen.containsKey(where) && !DERIVED.containsKey(where))
                {
                    problems.add(where + ": not checked against the header (add it to verbs_layout.c)");
                }
            }
        }
        for (final Map.Entry<String, Long> d : DERIVED.entrySet())
        {
            final String[] parts = d.getKey().split("\\.");
            final Long java = javaValue(API_GROUPS.values().stream().map(ConstantGroup::type)
                .filter(t -> t.getSimpleName().equals(parts[0])).findFirst().orElseThrow(), parts[1]);
            if (!d.getValue().equals(java))
            {
                problems.add(d.getKey() + " is " + java + ", expected " + d.getValue());
            }
        }
        assertTrue(problems.isEmpty(), "constants disagree with the header:\n  " + String.join("\n  ", problems));
    }

    private static Long javaValue(final Class<?> type, final String name) throws IllegalAccessException
    {
        if (type.isEnum())
        {
            for (final Object constant : type.getEnumConstants())
            {
                if (((Enum<?>)constant).name().equals(name))
                {
                    return constant instanceof WcStatus s ? (long)s.code() : (long)((QpState)constant).code();
                }
            }
            return null;
        }
        try
        {
            final Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.getType() == long.class ? field.getLong(null) : (long)field.getInt(null);
        }
        catch (final NoSuchFieldException e)
        {
            return null;
        }
    }

    private static List<String> javaNames(final Class<?> type)
    {
        if (type.isEnum())
        {
            return Stream.of(type.getEnumConstants()).map(c -> ((Enum<?>)c).name()).toList();
        }
        return Stream.of(type.getDeclaredFields())
            .filter(f -> Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers()))
            .filter(f -> f.getType() == int.class || f.getType() == long.class)
            .map(Field::getName)
            .toList();
    }
}
