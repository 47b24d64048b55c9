package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbs;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacm;
import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import io.rdmakv.verbs.ibverbs.bindings.RdmacmLibrary;
import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.ibverbs.layout.Pollfd;
import io.rdmakv.verbs.ibverbs.layout.RdmaCmEvent;
import io.rdmakv.verbs.ibverbs.layout.RdmaCmId;
import io.rdmakv.verbs.ibverbs.layout.RdmaConnParam;
import io.rdmakv.verbs.ibverbs.layout.RdmaEventChannel;
import io.rdmakv.verbs.ibverbs.layout.Timespec;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel *}) with a non-blocking fd, and the ids
 * created on it. {@link #next} waits for the next event with a deadline ({@code ppoll} on the fd), copies
 * it into a {@link CmEvent} and acknowledges it at once, so that {@code rdma_destroy_id} and
 * {@code rdma_migrate_id}, which wait for every event of their id to be acknowledged, never block. One
 * thread at a time (any thread); closing destroys the channel, its ids must be destroyed first.
 */
final class RdmaCmChannel implements AutoCloseable
{
    private final Arena arena = Arena.ofShared();
    private final MemorySegment channel;
    private final int fd;
    private final MemorySegment pollfd = arena.allocate(Pollfd.LAYOUT);
    private final MemorySegment timespec = arena.allocate(Timespec.LAYOUT);
    private final MemorySegment state = CallState.allocate(arena);
    private final MemorySegment eventOut = arena.allocate(ADDRESS);
    private boolean closed;

    private RdmaCmChannel(final MemorySegment channel)
    {
        this.channel = channel;
        this.fd = channel.get(JAVA_INT, RdmaEventChannel.FD);
    }

    /**
     * {@code rdma_create_event_channel}, its fd made non-blocking. Throws {@link VerbsException} naming the
     * package when librdmacm is missing, or the cause when the kernel has no rdma_cm.
     */
    static RdmaCmChannel create()
    {
        final String missing = RdmacmLibrary.loadFailure();
        if (missing != null)
        {
            throw new VerbsException("rdma_create_event_channel", 0, missing);
        }
        final MemorySegment created;
        final int errno;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            created = LibRdmacm.rdmaCreateEventChannel(state);
            errno = CallState.errno(state);
        }
        if (created.address() == 0)
        {
            throw new VerbsException("rdma_create_event_channel", errno, "rdma_cm is not usable here: " +
                (errno == Errno.ENOSYS || errno == Errno.ENODEV || errno == Errno.ENOENT ?
                    "no RDMA device, or no RDMA in this kernel (the rdma_ucm module is not loaded or not built)" :
                    "librdmacm could not open /dev/infiniband/rdma_cm"));
        }
        final RdmaCmChannel result = new RdmaCmChannel(created.reinterpret(RdmaEventChannel.SIZE));
        final int rc = LibC.setNonBlocking(result.fd);
        if (rc != 0)
        {
            result.close();
            throw new VerbsException("fcntl", rc, "making the rdma_cm event channel's fd non-blocking");
        }
        return result;
    }

    MemorySegment segment()
    {
        return channel;
    }

    /** The channel's fd: readable when an event waits (for an owner's own poll loop). */
    int fd()
    {
        return fd;
    }

    /** {@code rdma_create_id(channel, &id, NULL, RDMA_PS_TCP)}: a new id whose events come here. */
    MemorySegment createId()
    {
        final MemorySegment out = arena.allocate(ADDRESS);
        if (LibRdmacm.rdmaCreateId(state, channel, out, MemorySegment.NULL, RdmaCmConstants.RDMA_PS_TCP) != 0)
        {
            throw new VerbsException("rdma_create_id", CallState.errno(state), "RDMA_PS_TCP id");
        }
        return out.get(ADDRESS, 0).reinterpret(RdmaCmId.SIZE);
    }

    /** {@code rdma_destroy_id}; 0 or the errno. */
    static int destroyId(final MemorySegment id)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            return LibRdmacm.rdmaDestroyId(state, id) == 0 ? 0 : CallState.errno(state);
        }
    }

    /** The device an id is bound to (after an address was bound or resolved), or null. */
    static String deviceName(final MemorySegment id)
    {
        final MemorySegment verbs = id.get(ADDRESS, RdmaCmId.VERBS);
        if (verbs.address() == 0)
        {
            return null;
        }
        return LibIbverbs.ibvGetDeviceName(verbs.reinterpret(IbvContextStruct.SIZE).get(ADDRESS, IbvContextStruct.DEVICE));
    }

    static int portNum(final MemorySegment id)
    {
        return id.get(JAVA_BYTE, RdmaCmId.PORT_NUM) & 0xff;
    }

    /**
     * The next event, or null when none comes within {@code timeoutNanos}; acknowledged already. Throws
     * {@link VerbsException} when waiting or reading fails.
     */
    CmEvent next(final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        while (true)
        {
            final int ready = LibC.awaitReadable(fd, deadline - System.nanoTime(), pollfd, timespec, state);
            if (ready < 0)
            {
                throw new VerbsException("ppoll", -ready, "rdma_cm event channel fd " + fd);
            }
            if (ready == 0)
            {
                return null;
            }
            if (LibRdmacm.rdmaGetCmEvent(state, channel, eventOut) != 0)
            {
                final int errno = CallState.errno(state);
                if (errno == Errno.EAGAIN)
                {
                    continue; // readable, but the event was one librdmacm consumes itself
                }
                throw new VerbsException("rdma_get_cm_event", errno, "rdma_cm event channel fd " + fd);
            }
            final MemorySegment event = eventOut.get(ADDRESS, 0).reinterpret(RdmaCmEvent.SIZE);
            final CmEvent copy = copy(event);
            if (LibRdmacm.rdmaAckCmEvent(state, event) != 0)
            {
                throw new VerbsException("rdma_ack_cm_event", CallState.errno(state), copy.describe());
            }
            return copy;
        }
    }

    /**
     * The next event, which must be one of {@code expected} and come before {@code deadline}
     * ({@link System#nanoTime()}); any other event throws {@link RdmaCmException} naming it, and so does
     * the deadline passing.
     *
     * @param call what the caller did (for the message: {@code "rdma_resolve_addr"})
     * @param what about what ({@code "10.0.0.2:7471"})
     */
    CmEvent expect(final long deadline, final String call, final String what, final int... expected)
    {
        final CmEvent event = next(deadline - System.nanoTime());
        if (event == null)
        {
            final StringBuilder names = new StringBuilder();
            for (final int type : expected)
            {
                names.append(names.isEmpty() ? "" : " or ").append(LibRdmacm.rdmaEventStr(type));
            }
            throw RdmaCmException.timeout(call, what, names.toString());
        }
        for (final int type : expected)
        {
            if (event.type() == type && event.status() == 0)
            {
                return event;
            }
        }
        throw new RdmaCmException(call, what, event);
    }

    private static CmEvent copy(final MemorySegment event)
    {
        final int type = event.get(JAVA_INT, RdmaCmEvent.EVENT);
        final long conn = RdmaCmEvent.PARAM_CONN;
        final int length = event.get(JAVA_BYTE, conn + RdmaConnParam.PRIVATE_DATA_LEN) & 0xff;
        final MemorySegment data = event.get(ADDRESS, conn + RdmaConnParam.PRIVATE_DATA);
        final byte[] privateData = length == 0 || data.address() == 0 ? new byte[0] :
            data.reinterpret(length).toArray(JAVA_BYTE);
        return new CmEvent(type, LibRdmacm.rdmaEventStr(type), event.get(JAVA_INT, RdmaCmEvent.STATUS),
            event.get(ADDRESS, RdmaCmEvent.ID).address(), privateData,
            event.get(JAVA_BYTE, conn + RdmaConnParam.RESPONDER_RESOURCES) & 0xff,
            event.get(JAVA_BYTE, conn + RdmaConnParam.INITIATOR_DEPTH) & 0xff);
    }

    /** {@code rdma_destroy_event_channel}; once. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        LibRdmacm.rdmaDestroyEventChannel(channel);
        arena.close();
    }
}
