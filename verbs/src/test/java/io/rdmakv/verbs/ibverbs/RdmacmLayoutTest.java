package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import io.rdmakv.verbs.ibverbs.layout.CStruct;
import io.rdmakv.verbs.ibverbs.layout.RdmaCmId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks every rdma_cm struct layout and constant the bindings use against the installed
 * {@code <rdma/rdma_cma.h>}, with {@link IbverbsLayoutTest}'s machinery: compiles
 * {@code src/test/c/rdmacm_layout.c} with gcc, runs it, and compares its lines with the descriptors of
 * {@code io.rdmakv.verbs.ibverbs.layout} whose {@code HEADER} is {@value RdmaCmId#HEADER}, and with
 * {@link RdmaCmConstants}. Needs gcc and librdmacm-dev (scripts/setup.sh installs them), no RDMA device
 * and no librdmacm.so.
 */
class RdmacmLayoutTest
{
    private static final String SETUP_HINT = "run scripts/setup.sh (it installs gcc, libibverbs-dev and librdmacm-dev)";

    private static Map<String, Long> header;

    @BeforeAll
    static void compileAndRunTheCProgram() throws Exception
    {
        header = IbverbsLayoutTest.compileAndRun("rdmacm_layout", "rdma/rdma_cma.h", SETUP_HINT);
    }

    @Test
    void everyRdmacmDescriptorMatchesTheHeader() throws Exception
    {
        final Map<String, GroupLayout> layouts = IbverbsLayoutTest.descriptors(RdmaCmId.HEADER);
        assertTrue(layouts.keySet().containsAll(List.of("rdma_cm_id", "rdma_cm_event", "rdma_conn_param",
            "rdma_event_channel", "sockaddr_in", "sockaddr_in6", "sockaddr_storage", "rdma_route", "rdma_addr")),
            "descriptors found: " + layouts.keySet());
        // nested verbs.h structs (ibv_gid, ibv_ah_attr) are descriptors of their own, checked by IbverbsLayoutTest
        final List<GroupLayout> all = new ArrayList<>(layouts.values());
        all.addAll(IbverbsLayoutTest.descriptors().values());
        final List<String> problems = new ArrayList<>();
        for (final GroupLayout layout : layouts.values())
        {
            problems.addAll(IbverbsLayoutTest.compare(layout, header, all));
        }
        assertTrue(problems.isEmpty(), "Java layouts disagree with <rdma/rdma_cma.h>:\n  " +
            String.join("\n  ", problems));
    }

    @Test
    void everyStructTheCProgramPrintsHasADescriptor() throws Exception
    {
        final Map<String, GroupLayout> layouts = IbverbsLayoutTest.descriptors(RdmaCmId.HEADER);
        final List<String> missing = new ArrayList<>();
        for (final String key : header.keySet())
        {
            if (key.startsWith("sizeof(") && !key.contains("."))
            {
                final String struct = key.substring("sizeof(".length(), key.length() - 1);
                if (!layouts.containsKey(struct))
                {
                    missing.add(struct);
                }
            }
        }
        assertTrue(missing.isEmpty(), "structs printed by rdmacm_layout.c without a Java descriptor: " + missing);
    }

    @Test
    void theEventsConnectionParametersAreWhereTheHeaderPutsThem() throws Exception
    {
        // the offsets the connector adds up: param.conn inside the event, then the member
        final List<GroupLayout> all = List.copyOf(IbverbsLayoutTest.descriptors(RdmaCmId.HEADER).values());
        final StructLayout shifted = CStruct.struct("rdma_conn_param",
            ValueLayout.ADDRESS.withName("private_data"),
            MemoryLayout.paddingLayout(1),
            ValueLayout.JAVA_BYTE.withName("private_data_len"),
            ValueLayout.JAVA_BYTE.withName("responder_resources"),
            ValueLayout.JAVA_BYTE.withName("initiator_depth"),
            ValueLayout.JAVA_BYTE.withName("flow_control"),
            ValueLayout.JAVA_BYTE.withName("retry_count"),
            ValueLayout.JAVA_BYTE.withName("rnr_retry_count"),
            ValueLayout.JAVA_BYTE.withName("srq"),
            ValueLayout.JAVA_INT.withName("qp_num"));
        final List<String> problems = IbverbsLayoutTest.compare(shifted, header, all);
        assertTrue(problems.stream().anyMatch(p -> p.startsWith("offsetof(rdma_conn_param.srq)")), problems::toString);
    }

    @Test
    void everyConstantMatchesTheHeader() throws IllegalAccessException
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
            final String cName = qualified.substring(qualified.indexOf('.') + 1);
            try
            {
                final Field field = RdmaCmConstants.class.getDeclaredField(cName);
                final long java = field.getInt(null);
                javaSeen.put(cName, java);
                if (java != e.getValue())
                {
                    problems.add(cName + ": header says " + e.getValue() + ", RdmaCmConstants says " + java);
                }
            }
            catch (final NoSuchFieldException ex)
            {
                problems.add(cName + ": RdmaCmConstants." + cName + " does not exist");
            }
        }
        for (final Field field : RdmaCmConstants.class.getDeclaredFields())
        {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class &&
                !javaSeen.containsKey(field.getName()))
            {
                problems.add("RdmaCmConstants." + field.getName() + ": not checked against the header (add it to rdmacm_layout.c)");
            }
        }
        assertTrue(problems.isEmpty(), "constants disagree with <rdma/rdma_cma.h>:\n  " + String.join("\n  ", problems));
    }
}
