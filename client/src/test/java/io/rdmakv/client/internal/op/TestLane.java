package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.peer.SessionIo;
import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.hash.KeyHash;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@link Lane} wired as {@code Session} wires it (SessionIo, LaneRequests, ControlChannel, SpaceLease,
 * Lane) over a {@link ScriptedNic} to a {@link NodeRegion}, on an injected clock; with string helpers to
 * stage a key and value and run one operation.
 */
final class TestLane implements AutoCloseable
{
    static final long GRACE_NANOS = SpaceTiming.DEFAULT_GRACE_NANOS;
    /** How long a cache entry is fresh and a read is trusted: half the grace period. */
    static final long TRUST_NANOS = GRACE_NANOS / 2;

    private final Arena arena = Arena.ofShared();
    private final ScriptedNic nic;
    private final LaneCounters counters = new LaneCounters();
    private final SessionIo io;
    private final LaneRequests requests;
    private final ControlChannel control;
    private final SpaceLease space;
    private final Lane lane;

    /** A lane that shares {@code cache} (another lane of the same client). */
    TestLane(final NodeRegion node, final NanoClock clock, final long sessionId, final SlotCache cache)
    {
        final MemorySegment mem = arena.allocate(LaneBuffers.LENGTH, 4096);
        final LocalMemoryRegion mr = new LocalMemoryRegion(mem, 0x100 + (int)sessionId);
        nic = new ScriptedNic(node, mr);
        io = new SessionIo(nic, nic.completionQueue(), mr, LaneBuffers.CONTROL, counters, TimeUnit.SECONDS.toNanos(1),
            WaitStrategy.ADAPTIVE);
        io.postAllReceives();
        final RemoteIndex remote = node.remoteIndex();
        requests = new LaneRequests(io, remote, mem);
        control = new ControlChannel(io, mem, counters, TimeUnit.SECONDS.toNanos(5));
        space = new SpaceLease(control, counters, clock, 1);
        lane = new Lane(mem, requests, remote, space, control, counters, sessionId, GRACE_NANOS, clock);
        lane.useCache(cache);
    }

    /** A lane of its own client: a slot cache of its own. */
    TestLane(final NodeRegion node, final NanoClock clock, final long sessionId)
    {
        this(node, clock, sessionId, new SlotCache(1 << 14, clock.nanoTime()));
    }

    ScriptedNic nic()
    {
        return nic;
    }

    Lane lane()
    {
        return lane;
    }

    SpaceLease space()
    {
        return space;
    }

    long count(final ClientCounter counter)
    {
        return counters.get(counter);
    }

    int put(final String key, final String value)
    {
        stage(key, value);
        return lane.put();
    }

    /** A PUT of a key whose partition the client placed where it is at {@code placedNanos} (Router#placedNanos). */
    int putPlacedAt(final String key, final String value, final long placedNanos)
    {
        final byte[] k = NodeRegion.bytes(key);
        lane.key(MemorySegment.ofArray(k), 0, k.length, KeyHash.hash(k), KeyHash.WHOLE_INDEX, placedNanos);
        final byte[] v = NodeRegion.bytes(value);
        lane.value(MemorySegment.ofArray(v), 0, v.length);
        return lane.put();
    }

    int compareAndSet(final String key, final String value, final long expected)
    {
        stage(key, value);
        return lane.compareAndSet(expected);
    }

    int get(final String key)
    {
        stage(key);
        return lane.get();
    }

    int delete(final String key)
    {
        stage(key);
        return lane.delete();
    }

    /** The key's version after the last operation (its slot word). */
    long version()
    {
        return lane.result().version();
    }

    /** The value the last GET returned. */
    String value()
    {
        final LaneResult result = lane.result();
        return new String(result.valueSegment().asSlice(result.valueOffset(), result.valueLength())
            .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** Where the doorbell log stands now; pass to {@link #doorbellsSince}. */
    int mark()
    {
        return nic.doorbellCount();
    }

    List<String> doorbellsSince(final int mark)
    {
        return nic.doorbellsSince(mark);
    }

    private void stage(final String key)
    {
        final byte[] k = NodeRegion.bytes(key);
        lane.key(MemorySegment.ofArray(k), 0, k.length, KeyHash.hash(k));
    }

    private void stage(final String key, final String value)
    {
        stage(key);
        final byte[] v = NodeRegion.bytes(value);
        lane.value(MemorySegment.ofArray(v), 0, v.length);
    }

    @Override
    public void close()
    {
        lane.close();
        requests.close();
        control.close();
        io.close();
        arena.close();
    }
}
