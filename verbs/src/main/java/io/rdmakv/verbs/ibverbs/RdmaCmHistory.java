package io.rdmakv.verbs.ibverbs;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * What happened to one rdma_cm id, with wall-clock times: the events it got and the steps this side took (queue
 * pair moves, connect, accept, disconnect), for the message of a failure. Written on the connection-setup path
 * and by the connection's event polling, read only when something failed: never on the data path. At most
 * {@link #CAPACITY} entries; later ones are counted, not kept. Thread-safe (the owner writes, a failure report
 * of another thread may read).
 */
public final class RdmaCmHistory
{
    /** Entries kept. */
    public static final int CAPACITY = 24;
    private static final DateTimeFormatter TIME =
        DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private final String role;
    private final long[] wallMillis = new long[CAPACITY];
    private final String[] what = new String[CAPACITY];
    private int count;
    private int dropped;

    /** @param role which side: {@code "connect"} or {@code "accept"} */
    RdmaCmHistory(final String role)
    {
        this.role = role;
    }

    /** Records a step of this side, now. */
    synchronized void step(final String step)
    {
        if (count == CAPACITY)
        {
            dropped++;
            return;
        }
        wallMillis[count] = System.currentTimeMillis();
        what[count++] = step;
    }

    /** Records an event this id got, now (with its status and, for connection events, the peer's IRD/ORD). */
    void event(final CmEvent event)
    {
        step("event " + event.describe() +
            (event.responderResources() != 0 || event.initiatorDepth() != 0 ?
            " (peer responder resources " + event.responderResources() + ", initiator depth " +
            event.initiatorDepth() + ")" : ""));
    }

    /** {@code "rdma_cm (connect) 12:00:01.123 rdma_resolve_addr, 12:00:01.130 event ADDR_RESOLVED, ..."} (UTC). */
    public synchronized String describe()
    {
        final StringBuilder sb = new StringBuilder("rdma_cm (").append(role).append(")");
        for (int i = 0; i < count; i++)
        {
            sb.append(i == 0 ? " " : ", ").append(TIME.format(Instant.ofEpochMilli(wallMillis[i]))).append(' ')
                .append(what[i]);
        }
        if (dropped > 0)
        {
            sb.append(", and ").append(dropped).append(" more");
        }
        return sb.toString();
    }

    @Override
    public String toString()
    {
        return describe();
    }
}
