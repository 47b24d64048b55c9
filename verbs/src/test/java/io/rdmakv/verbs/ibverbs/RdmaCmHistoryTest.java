package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a connection's history says in a failure's message: its steps and events in order, with times; bounded. */
class RdmaCmHistoryTest
{
    @Test
    void stepsAndEventsInOrderWithTheirTimesAndThePeersDepths()
    {
        final RdmaCmHistory history = new RdmaCmHistory("connect to /10.0.0.1:7000, queue pair 5");
        history.step("rdma_connect");
        history.event(new CmEvent(RdmaCmConstants.RDMA_CM_EVENT_ESTABLISHED, "RDMA_CM_EVENT_ESTABLISHED", 0, 1,
            new byte[0], 4, 8));
        history.event(new CmEvent(RdmaCmConstants.RDMA_CM_EVENT_DISCONNECTED, "RDMA_CM_EVENT_DISCONNECTED", 0, 1,
            new byte[0], 0, 0));
        final String text = history.describe();

        assertTrue(text.matches("rdma_cm \\(connect to /10\\.0\\.0\\.1:7000, queue pair 5\\) " +
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} rdma_connect, " +
            "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} event RDMA_CM_EVENT_ESTABLISHED \\(peer responder resources 4, initiator " +
            "depth 8\\), \\d\\d:\\d\\d:\\d\\d\\.\\d{3} event RDMA_CM_EVENT_DISCONNECTED"), text);
    }

    @Test
    void keepsTheFirstEntriesAndCountsTheRest()
    {
        final RdmaCmHistory history = new RdmaCmHistory("accept");
        for (int i = 0; i < RdmaCmHistory.CAPACITY + 3; i++)
        {
            history.step("step " + i);
        }
        final String text = history.describe();

        assertTrue(text.contains(" step 0,"), text);
        assertTrue(text.contains(" step " + (RdmaCmHistory.CAPACITY - 1) + ", and 3 more"), text);
        assertEquals(-1, text.indexOf("step " + RdmaCmHistory.CAPACITY + ","), text);
    }
}
