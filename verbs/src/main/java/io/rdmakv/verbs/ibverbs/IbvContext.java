package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbs;
import io.rdmakv.verbs.ibverbs.layout.IbvAsyncEvent;
import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.ibverbs.layout.IbvDevice;
import io.rdmakv.verbs.ibverbs.layout.IbvDeviceAttr;
import io.rdmakv.verbs.ibverbs.layout.IbvPortAttr;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * An open device ({@code struct ibv_context *}) and the one port rdmakv uses on it. Holds what the
 * queue pairs need to connect: the port's LID, active MTU and link layer, the device's read/atomic
 * limits, and the local GID (on RoCE a RoCE v2 entry, chosen at open).
 */
public final class IbvContext extends VerbsResource implements Context
{
    private static final System.Logger LOG = System.getLogger(IbvContext.class.getName());
    /** {@code RXE_VENDOR_ID} of the kernel's {@code rdma_rxe} ({@code rxe_param.h}); not in verbs.h. */
    static final int RXE_VENDOR_ID = 0xFFFFFF;
    /** {@code vendor_id} of the kernel's software iWARP driver, {@code siw} ({@code SIW_VENDOR_ID}: ASCII "bmt"). */
    static final int SIW_VENDOR_ID = 0x626D74;

    private final MemorySegment context;
    private final String deviceName;
    private final long nodeGuid;
    private final int port;
    private final int linkLayer;
    private final int transportType;
    private final int activeMtu;
    private final int lid;
    private final int portCount;
    private final IbvPortGids gids;
    private final int gidIndex;
    private final byte[] gid;
    private final int maxQpWr;
    private final int maxSge;
    private final int maxCqe;
    private final long maxMrSize;
    private final int maxQpRdAtom;
    private final int maxQpInitRdAtom;
    private final int atomicCap;
    private final int vendorId;
    private final int vendorPartId;
    private int maxInlineData = -1;

    /** Takes ownership of an opened {@code context}: closes it if anything here fails. */
    IbvContext(final MemorySegment context, final String deviceName, final long nodeGuid, final int port)
    {
        super("ibv_close_device");
        this.context = context.reinterpret(IbvContextStruct.SIZE);
        this.deviceName = deviceName;
        this.nodeGuid = nodeGuid;
        this.port = port;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment deviceAttr = arena.allocate(IbvDeviceAttr.LAYOUT);
            int rc = LibIbverbs.ibvQueryDevice(state, this.context, deviceAttr);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_device", CallState.errnoOf(rc, state), "device " + deviceName);
            }
            portCount = deviceAttr.get(JAVA_BYTE, IbvDeviceAttr.PHYS_PORT_CNT) & 0xff;
            if (port < 1 || port > portCount)
            {
                throw new VerbsException("ibv_query_port", Errno.EINVAL,
                    "device " + deviceName + " has ports 1.." + portCount + ", not port " + port);
            }
            maxQpWr = deviceAttr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_WR);
            maxSge = deviceAttr.get(JAVA_INT, IbvDeviceAttr.MAX_SGE);
            maxCqe = deviceAttr.get(JAVA_INT, IbvDeviceAttr.MAX_CQE);
            final long mrSize = deviceAttr.get(JAVA_LONG, IbvDeviceAttr.MAX_MR_SIZE); // u64: rxe says 2^64-1
            maxMrSize = mrSize < 0 ? Long.MAX_VALUE : mrSize;
            maxQpRdAtom = deviceAttr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_RD_ATOM);
            maxQpInitRdAtom = deviceAttr.get(JAVA_INT, IbvDeviceAttr.MAX_QP_INIT_RD_ATOM);
            atomicCap = deviceAttr.get(JAVA_INT, IbvDeviceAttr.ATOMIC_CAP);
            vendorId = deviceAttr.get(JAVA_INT, IbvDeviceAttr.VENDOR_ID);
            vendorPartId = deviceAttr.get(JAVA_INT, IbvDeviceAttr.VENDOR_PART_ID);

            final MemorySegment portAttr = queryPort(arena, state);
            final int portState = portAttr.get(JAVA_INT, IbvPortAttr.STATE);
            if (portState != IbvConstants.IBV_PORT_ACTIVE)
            {
                throw new VerbsException("ibv_query_port", Errno.ENODEV, "port " + port + " of device " +
                    deviceName + " is " + IbvConstants.portStateName(portState) + ", not ACTIVE");
            }
            linkLayer = portAttr.get(JAVA_BYTE, IbvPortAttr.LINK_LAYER) & 0xff;
            transportType = this.context.get(ADDRESS, IbvContextStruct.DEVICE).reinterpret(IbvDevice.SIZE)
                .get(JAVA_INT, IbvDevice.TRANSPORT_TYPE);
            activeMtu = portAttr.get(JAVA_INT, IbvPortAttr.ACTIVE_MTU);
            lid = portAttr.get(JAVA_SHORT, IbvPortAttr.LID) & 0xffff;
            gids = new IbvPortGids(this.context, deviceName, port, portCount,
                portAttr.get(JAVA_INT, IbvPortAttr.GID_TBL_LEN));

            final GidEntry chosen = gids.choose(arena, state, isEthernet());
            gidIndex = chosen.index();
            gid = chosen.gid();
            LOG.log(System.Logger.Level.DEBUG, () -> "opened " + deviceName + " port " + port + ": " +
                IbvConstants.linkLayerName(linkLayer) + ", lid " + lid + ", mtu " +
                IbvConstants.mtuBytes(activeMtu) + ", gid index " + gidIndex + " " + chosen);
        }
        catch (final RuntimeException e)
        {
            try (Arena arena = Arena.ofConfined())
            {
                LibIbverbs.ibvCloseDevice(CallState.allocate(arena), this.context);
            }
            throw e;
        }
    }

    /** One valid entry of the GID table. */
    public record GidEntry(int index, byte[] gid, int type)
    {
        public String typeName()
        {
            return IbvConstants.gidTypeName(type);
        }

        @Override
        public String toString()
        {
            return "GID[" + index + "] " + HexFormat.ofDelimiter(":").formatHex(gid) + " " + typeName();
        }
    }

    private MemorySegment queryPort(final Arena arena, final MemorySegment state)
    {
        final MemorySegment portAttr = arena.allocate(IbvPortAttr.LAYOUT); // zeroed: the call fills 48 of 52 bytes
        final int rc = LibIbverbs.ibvQueryPort(state, context, port, portAttr);
        if (rc != 0)
        {
            throw new VerbsException("ibv_query_port", CallState.errnoOf(rc, state),
                "port " + port + " of device " + deviceName);
        }
        return portAttr;
    }

    /**
     * The GID entries of this context's port ({@code _ibv_query_gid_table}: one call for the whole table).
     */
    public List<GidEntry> gidTable()
    {
        return gids.table();
    }

    /** Entry {@code index} of this port's GID table ({@code _ibv_query_gid_ex}); throws when it is empty. */
    public GidEntry queryGid(final int index)
    {
        return gids.query(index);
    }

    MemorySegment segment()
    {
        return context;
    }

    int port()
    {
        return port;
    }

    /** iWARP ({@code ibv_device.transport_type}): queue pairs connect through rdma_cm only. */
    @Override
    public boolean requiresConnectionManager()
    {
        return transportType == IbvConstants.IBV_TRANSPORT_IWARP;
    }

    @Override
    public io.rdmakv.verbs.ConnectionManager connectionManager()
    {
        return new IbvConnectionManager(this);
    }

    boolean isEthernet()
    {
        return linkLayer == IbvConstants.IBV_LINK_LAYER_ETHERNET;
    }

    /** The port's active MTU ({@code enum ibv_mtu}). */
    public int activeMtu()
    {
        return activeMtu;
    }

    public int lid()
    {
        return lid;
    }

    /** The GID index the queue pairs of this context send from unless {@code ConnectOptions.gidIndex} says otherwise. */
    public int gidIndex()
    {
        return gidIndex;
    }

    public byte[] gid()
    {
        return gid.clone();
    }

    public long nodeGuid()
    {
        return nodeGuid;
    }

    /** {@code max_cqe}: the most entries a completion queue of this device may have. */
    int maxCqe()
    {
        return maxCqe;
    }

    /** {@code max_qp_rd_atom}: READs/atomics a queue pair serves at once (responder resources). */
    int maxQpRdAtom()
    {
        return maxQpRdAtom;
    }

    /** {@code max_qp_init_rd_atom}: READs/atomics a queue pair may have outstanding as initiator. */
    int maxQpInitRdAtom()
    {
        return maxQpInitRdAtom;
    }

    /** {@code vendor_id} of {@code ibv_query_device} (IEEE OUI; Soft-RoCE says {@code 0xffffff}). */
    public int vendorId()
    {
        return vendorId;
    }

    public int vendorPartId()
    {
        return vendorPartId;
    }

    /**
     * True on the kernel's software RoCE driver, {@code rdma_rxe}, recognized by its vendor id (a device
     * name is chosen by whoever creates the device, so "rxe0" proves nothing).
     */
    public boolean isSoftRoce()
    {
        return vendorId == RXE_VENDOR_ID;
    }

    /** True on the kernel's software iWARP driver, {@code siw}, recognized by its vendor id. */
    public boolean isSoftIwarp()
    {
        return vendorId == SIW_VENDOR_ID;
    }

    @Override
    public String providerName()
    {
        return "ibverbs";
    }

    @Override
    public String deviceName()
    {
        return deviceName;
    }

    @Override
    public synchronized DeviceAttributes attributes()
    {
        ensureOpen("ibv_query_device");
        if (maxInlineData < 0)
        {
            maxInlineData = InlineDataProbe.maxInlineData(context);
        }
        final int portState;
        try (Arena arena = Arena.ofConfined())
        {
            portState = queryPort(arena, CallState.allocate(arena)).get(JAVA_INT, IbvPortAttr.STATE);
        }
        return new DeviceAttributes(maxQpWr, maxSge, maxCqe, maxMrSize, maxQpInitRdAtom,
            IbvConstants.atomicCapName(atomicCap), maxInlineData, IbvConstants.portStateName(portState),
            IbvConstants.linkLayerName(linkLayer));
    }

    @Override
    public ProtectionDomain allocateProtectionDomain()
    {
        synchronized (this)
        {
            ensureOpen("ibv_alloc_pd");
            return adopt(new IbvProtectionDomain(this));
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(final int capacity)
    {
        if (capacity <= 0)
        {
            throw new IllegalArgumentException("completion queue capacity must be positive: " + capacity);
        }
        synchronized (this)
        {
            ensureOpen("ibv_create_cq");
            return adopt(new IbvCompletionQueue(this, capacity));
        }
    }

    /**
     * The next asynchronous event of this device ({@code ibv_get_async_event}, acknowledged at once), or
     * null when none arrives within {@code timeoutNanos}.
     */
    public AsyncEvent nextAsyncEvent(final long timeoutNanos)
    {
        final int fd;
        synchronized (this)
        {
            ensureOpen("ibv_get_async_event");
            fd = context.get(JAVA_INT, IbvContextStruct.ASYNC_FD);
        }
        final int ready = LibC.awaitReadable(fd, timeoutNanos);
        if (ready < 0)
        {
            throw new VerbsException("ppoll", -ready, "async event fd of device " + deviceName);
        }
        if (ready == 0)
        {
            return null;
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment event = arena.allocate(IbvAsyncEvent.LAYOUT);
            final int rc = LibIbverbs.ibvGetAsyncEvent(state, context, event);
            if (rc != 0)
            {
                throw new VerbsException("ibv_get_async_event", CallState.errnoOf(rc, state), "device " + deviceName);
            }
            final int type = event.get(JAVA_INT, IbvAsyncEvent.EVENT_TYPE);
            final AsyncEvent result = new AsyncEvent(type, LibIbverbs.ibvEventTypeStr(type),
                event.get(JAVA_LONG, IbvAsyncEvent.ELEMENT), event.get(JAVA_INT, IbvAsyncEvent.ELEMENT_PORT_NUM));
            LibIbverbs.ibvAckAsyncEvent(event);
            return result;
        }
    }

    /**
     * An asynchronous event ({@code struct ibv_async_event}).
     *
     * @param type    {@code enum ibv_event_type}
     * @param name    {@code ibv_event_type_str(type)}
     * @param element address of the CQ/QP/SRQ/WQ it concerns (for port events, {@link #portNum} instead)
     * @param portNum the port, for port events
     */
    public record AsyncEvent(int type, String name, long element, int portNum)
    {
    }

    @Override
    protected String resourceName()
    {
        return "device " + deviceName;
    }

    @Override
    protected String openChildrenMessage()
    {
        return "device " + deviceName + " still has " + openChildren(IbvProtectionDomain.class) +
            " protection domain(s) and " + openChildren(IbvCompletionQueue.class) +
            " completion queue(s) open; close them first";
    }

    /** {@code ibv_close_device}. */
    @Override
    protected int release()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final int rc = LibIbverbs.ibvCloseDevice(state, context);
            return rc == 0 ? 0 : CallState.errnoOf(rc, state);
        }
    }

    @Override
    public String toString()
    {
        return "IbvContext{" + deviceName + " port " + port + ", " + IbvConstants.linkLayerName(linkLayer) +
            ", gid index " + gidIndex + "}";
    }
}
