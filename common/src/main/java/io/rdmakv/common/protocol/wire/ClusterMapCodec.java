package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.InvalidClusterMapException;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_LENGTH;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_VERSION;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.OVERSIZED;

/**
 * The binary form of a {@link ClusterMap} on the control plane (the map a HELLO_OK carries), so that a
 * client learns the map without a JSON parser (JSON stays for config files and {@code kvctl} output).
 * Little-endian:
 *
 * <pre>
 *    0 format            u8    {@value #FORMAT}: this encoding's version
 *    1 assignment_kind   u8    {@value #ROUND_ROBIN}: round-robin over the nodes in id order (no table);
 *                              {@value #EXPLICIT}: a table of partition_count node indexes follows the nodes
 *    2 reserved          u16   zero
 *    4 node_count        u32   1..partition_count
 *    8 partition_count   u32   1..{@link ClusterMap#MAX_PARTITIONS}
 *   12 epoch             u64   at least 0
 *   20 nodes             node_count times: id u32 (at least 0), port u16, host_length u16
 *                              (1..{@link ClusterNode#MAX_HOST_LENGTH}), host (UTF-8); in ascending id order
 *   .. assignment        partition_count times: u16, the partition's node as an index into the nodes
 *                        (kind {@value #EXPLICIT} only)
 * </pre>
 *
 * Kind {@value #GROUPS} (replicated maps, {@link ClusterMap#isSimple()} false) has, after the nodes:
 * <pre>
 *    replication_factor  u8    1..{@link ReplicaGroup#MAX_REPLICAS}
 *    flags               u8    bit 0: the map has a segment table ({@link ClusterMap#hasSegments}); others zero
 *    group_count         u16   1..partition_count
 *    fence_epoch         u64   0..epoch: the epoch of the last change that fences ({@link ClusterMap#fenceEpoch})
 *    groups              group_count times: id u32, member_count u8, copying_count u8, flags u8 (bit 0:
 *                              sealed), reserved u8, then member_count + copying_count u16 node indexes
 *                              (members primary first, then copying)
 *    partitions          partition_count times: group u16, the partition's group as an index into the groups;
 *                              with flag bit 0 also segment_base u32 and segment_count u32, the partition's index
 *                              segment on its group's nodes in bucket groups (base + count at most 2^32)
 *    batch_count         u16   (format 4) the move batches ({@link io.rdmakv.common.cluster.MoveBatch}), each:
 *                              id u64, source u16 and target u16 (group indexes), phase u8 (0 copy, 1 freeze,
 *                              2 switch), reserved u8, partition_count u16 (at least 1), phase_epoch u64, then
 *                              partition_count times partition u32, segment_base u32, segment_count u32
 *    retired_count       u32   (format 4) the retired segments ({@link io.rdmakv.common.cluster.RetiredSegment}),
 *                              each: batch u64, switch_epoch u64, group u16 (index), reserved u16, partition u32,
 *                              segment_base u32, segment_count u32
 * </pre>
 *
 * Format 3 is format 4 without the two move sections (a map without moves); this build still reads it.
 *
 * <p><b>Size.</b> With a segment table a partition takes 10 bytes: 40,960 at 4096 partitions. A group of R nodes
 * takes 8 + 2R bytes, a node 8 bytes plus its host. At 4096 partitions, 256 nodes in 128 groups of 2 take
 * 32 + 40,960 + 128 * 12 = 42,528 bytes plus 256 nodes of 8 + host bytes: {@link
 * io.rdmakv.common.protocol.HelloOkMessage#MAX_CLUSTER_MAP_LENGTH} (about 65,000) leaves each of the 256 nodes
 * 8 + 79 bytes, so hosts of up to 79 bytes (any IPv4 or IPv6 address, most DNS names) fit; with 15-byte hosts
 * (dotted IPv4) the map is 48,416 bytes ({@code ClusterMapCodecTest} checks both).
 *
 * Decoding checks every count against the bytes left before it allocates, rejects malformed UTF-8,
 * reserved bits, trailing bytes and any map {@link ClusterMap} itself refuses, always with a
 * {@link MalformedMessageException} (never an index or buffer exception).
 */
public final class ClusterMapCodec
{
    /** The encoding's version, its first byte. */
    public static final int FORMAT = 4;
    /** The format before move records, still read. */
    public static final int FORMAT_WITHOUT_MOVES = 3;
    static final int BATCH_HEADER_LENGTH = 24;
    static final int BATCH_ENTRY_LENGTH = 12;
    static final int RETIRED_LENGTH = 32;
    public static final int ROUND_ROBIN = 0;
    public static final int EXPLICIT = 1;
    public static final int GROUPS = 2;
    /** The fixed part's length: everything before the first node. */
    public static final int NODES_OFFSET = 20;
    /** The fewest bytes one node takes (id, port, host length, one byte of host). */
    static final int MIN_NODE_LENGTH = 9;

    private ClusterMapCodec()
    {
    }

    /** How many bytes {@link #encode} writes for {@code map}. */
    public static int encodedLength(final ClusterMap map)
    {
        int length = NODES_OFFSET + (isRoundRobin(map) ? 0 : map.partitionCount() * Short.BYTES);
        if (!map.isSimple())
        {
            length += 4 + Long.BYTES + (map.hasSegments() ? map.partitionCount() * 2 * Integer.BYTES : 0);
            length += Short.BYTES + Integer.BYTES + map.moves().retired().size() * RETIRED_LENGTH;
            for (final MoveBatch b : map.moves().batches())
            {
                length += BATCH_HEADER_LENGTH + b.size() * BATCH_ENTRY_LENGTH;
            }
            for (final ReplicaGroup group : map.groups())
            {
                length += 8 + (group.memberCount() + group.copyingCount()) * Short.BYTES;
            }
        }
        for (final ClusterNode node : map.nodes())
        {
            length += MIN_NODE_LENGTH - 1 + node.host().getBytes(StandardCharsets.UTF_8).length;
        }
        return length;
    }

    /** The map's encoding (control path: allocates). */
    public static byte[] encode(final ClusterMap map)
    {
        final List<ClusterNode> nodes = map.nodes();
        final boolean roundRobin = isRoundRobin(map);
        final int kind = !map.isSimple() ? GROUPS : roundRobin ? ROUND_ROBIN : EXPLICIT;
        final byte[][] hosts = new byte[nodes.size()][];
        for (int i = 0; i < hosts.length; i++)
        {
            hosts[i] = nodes.get(i).host().getBytes(StandardCharsets.UTF_8);
        }
        final ByteBuffer out = ByteBuffer.allocate(encodedLength(map)).order(ByteOrder.LITTLE_ENDIAN);
        out.put((byte)FORMAT).put((byte)kind).putShort((short)0)
            .putInt(nodes.size()).putInt(map.partitionCount()).putLong(map.epoch());
        for (int i = 0; i < hosts.length; i++)
        {
            out.putInt(nodes.get(i).id()).putShort((short)nodes.get(i).port()).putShort((short)hosts[i].length)
                .put(hosts[i]);
        }
        if (kind == GROUPS)
        {
            encodeGroups(map, out);
        }
        else if (!roundRobin)
        {
            final int[] assignment = map.assignment();
            for (final int id : assignment)
            {
                out.putShort((short)indexOf(nodes, id));
            }
        }
        return out.array();
    }

    /** Decodes a whole encoding; throws {@link MalformedMessageException} naming what is wrong. */
    public static ClusterMap decode(final byte[] bytes)
    {
        final ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try
        {
            return decode(in);
        }
        catch (final BufferUnderflowException e)
        {
            throw new MalformedMessageException(
                BAD_LENGTH, "cluster map of " + bytes.length + " bytes ends inside a field at offset " + in.position(), e);
        }
        catch (final InvalidClusterMapException e)
        {
            throw new MalformedMessageException(BAD_FIELD, e.getMessage(), e);
        }
    }

    private static ClusterMap decode(final ByteBuffer in)
    {
        final int format = in.get() & 0xFF;
        if (format != FORMAT && format != FORMAT_WITHOUT_MOVES)
        {
            throw new MalformedMessageException(BAD_VERSION, "cluster map of format " + format +
                ": this build reads formats " + FORMAT_WITHOUT_MOVES + " and " + FORMAT);
        }
        final int kind = in.get() & 0xFF;
        if (kind != ROUND_ROBIN && kind != EXPLICIT && kind != GROUPS)
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map assignment kind " + kind + " is not 0, 1 or 2");
        }
        if (in.getShort() != 0)
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map reserved field is not zero");
        }
        final long nodeCount = Integer.toUnsignedLong(in.getInt());
        final long partitions = Integer.toUnsignedLong(in.getInt());
        final long epoch = in.getLong();
        if (partitions < 1 || partitions > ClusterMap.MAX_PARTITIONS)
        {
            throw new MalformedMessageException(
                OVERSIZED, "cluster map partition count " + partitions + " outside 1.." + ClusterMap.MAX_PARTITIONS);
        }
        final long maxNodes = kind == GROUPS ? 0xFFFF : partitions;
        if (nodeCount < 1 || nodeCount > maxNodes || nodeCount * MIN_NODE_LENGTH > in.remaining())
        {
            throw new MalformedMessageException(
                OVERSIZED, "cluster map node count " + nodeCount + " outside 1.." + maxNodes + " or past its " +
                in.remaining() + " bytes of nodes");
        }
        final List<ClusterNode> nodes = new ArrayList<>((int)nodeCount);
        int previousId = -1;
        for (int i = 0; i < nodeCount; i++)
        {
            final int id = in.getInt();
            final int port = in.getShort() & 0xFFFF;
            final int hostLength = in.getShort() & 0xFFFF;
            if (hostLength < 1 || hostLength > ClusterNode.MAX_HOST_LENGTH)
            {
                throw new MalformedMessageException(
                    OVERSIZED, "cluster map node #" + i + " host length " + hostLength + " outside 1.." +
                    ClusterNode.MAX_HOST_LENGTH);
            }
            if (id <= previousId)
            {
                throw new MalformedMessageException(
                    BAD_FIELD, "cluster map node #" + i + " id " + Integer.toUnsignedString(id) +
                    " is negative or not above the previous node's");
            }
            previousId = id;
            nodes.add(new ClusterNode(id, host(in, hostLength, i), port));
        }
        if (kind == GROUPS)
        {
            return decodeGroups(in, epoch, (int)partitions, nodes, format == FORMAT);
        }
        int[] assignment = null;
        if (kind == EXPLICIT)
        {
            if (partitions * Short.BYTES != in.remaining())
            {
                throw new MalformedMessageException(
                    BAD_LENGTH, "cluster map assignment of " + partitions + " partitions needs " +
                    partitions * Short.BYTES + " bytes, has " + in.remaining());
            }
            assignment = new int[(int)partitions];
            for (int p = 0; p < assignment.length; p++)
            {
                final int index = in.getShort() & 0xFFFF;
                if (index >= nodeCount)
                {
                    throw new MalformedMessageException(
                        BAD_FIELD, "cluster map assigns partition " + p + " to node index " + index + " of " + nodeCount);
                }
                assignment[p] = nodes.get(index).id();
            }
        }
        if (in.hasRemaining())
        {
            throw new MalformedMessageException(
                BAD_LENGTH, "cluster map has " + in.remaining() + " bytes after its last field");
        }
        return new ClusterMap(epoch, (int)partitions, nodes, assignment);
    }

    private static void encodeGroups(final ClusterMap map, final ByteBuffer out)
    {
        final List<ClusterNode> nodes = map.nodes();
        out.put((byte)map.replicationFactor()).put((byte)(map.hasSegments() ? 1 : 0)).putShort((short)map.groups().size())
            .putLong(map.fenceEpoch());
        for (final ReplicaGroup group : map.groups())
        {
            out.putInt(group.id()).put((byte)group.memberCount()).put((byte)group.copyingCount())
                .put((byte)(group.sealed() ? 1 : 0)).put((byte)0);
            for (int i = 0; i < group.memberCount(); i++)
            {
                out.putShort((short)indexOf(nodes, group.member(i)));
            }
            for (int i = 0; i < group.copyingCount(); i++)
            {
                out.putShort((short)indexOf(nodes, group.copying(i)));
            }
        }
        for (int p = 0; p < map.partitionCount(); p++)
        {
            out.putShort((short)map.groupIndexOf(p));
            if (map.hasSegments())
            {
                final long segment = map.segmentOf(p);
                out.putInt((int)KeyHash.segmentBase(segment)).putInt((int)KeyHash.segmentCount(segment));
            }
        }
        final List<ReplicaGroup> groups = map.groups();
        out.putShort((short)map.moves().batches().size());
        for (final MoveBatch b : map.moves().batches())
        {
            out.putLong(b.id()).putShort((short)groupIndex(groups, b.source())).putShort((short)groupIndex(groups, b.target()))
                .put((byte)b.phase().ordinal()).put((byte)0).putShort((short)b.size()).putLong(b.phaseEpoch());
            for (int i = 0; i < b.size(); i++)
            {
                out.putInt(b.partition(i)).putInt((int)KeyHash.segmentBase(b.segment(i)))
                    .putInt((int)KeyHash.segmentCount(b.segment(i)));
            }
        }
        out.putInt(map.moves().retired().size());
        for (final RetiredSegment r : map.moves().retired())
        {
            out.putLong(r.batch()).putLong(r.switchEpoch()).putShort((short)groupIndex(groups, r.group()))
                .putShort((short)0).putInt(r.partition()).putInt((int)KeyHash.segmentBase(r.segment()))
                .putInt((int)KeyHash.segmentCount(r.segment()));
        }
    }

    private static int groupIndex(final List<ReplicaGroup> groups, final int id)
    {
        for (int g = 0; g < groups.size(); g++)
        {
            if (groups.get(g).id() == id)
            {
                return g;
            }
        }
        throw new IllegalStateException("moved group " + id + " not listed");
    }

    private static ClusterMap decodeGroups(final ByteBuffer in, final long epoch, final int partitions,
        final List<ClusterNode> nodes, final boolean withMoves)
    {
        final int factor = in.get() & 0xFF;
        final int mapFlags = in.get() & 0xFF;
        if ((mapFlags & ~1) != 0)
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map group flags " + mapFlags + " have reserved bits set");
        }
        final boolean segmented = mapFlags == 1;
        final int groupCount = in.getShort() & 0xFFFF;
        final long fenceEpoch = in.getLong();
        if (fenceEpoch < 0 || fenceEpoch > epoch)
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map fence epoch " + fenceEpoch + " outside 0.." +
                epoch);
        }
        if (groupCount < 1 || groupCount > partitions || (long)groupCount * 8 > in.remaining())
        {
            throw new MalformedMessageException(
                OVERSIZED, "cluster map group count " + groupCount + " outside 1.." + partitions + " or past its " +
                in.remaining() + " bytes");
        }
        final List<ReplicaGroup> groups = new ArrayList<>(groupCount);
        for (int g = 0; g < groupCount; g++)
        {
            final int id = in.getInt();
            final int memberCount = in.get() & 0xFF;
            final int copyingCount = in.get() & 0xFF;
            final int flags = in.get() & 0xFF;
            if ((flags & ~1) != 0 || in.get() != 0)
            {
                throw new MalformedMessageException(BAD_FIELD, "cluster map group #" + g + " has reserved bits set");
            }
            if (memberCount + copyingCount > ReplicaGroup.MAX_REPLICAS)
            {
                throw new MalformedMessageException(
                    OVERSIZED, "cluster map group #" + g + " has " + (memberCount + copyingCount) + " nodes, at most " +
                    ReplicaGroup.MAX_REPLICAS);
            }
            final int[] members = new int[memberCount];
            final int[] copying = new int[copyingCount];
            for (int i = 0; i < memberCount + copyingCount; i++)
            {
                final int index = in.getShort() & 0xFFFF;
                if (index >= nodes.size())
                {
                    throw new MalformedMessageException(
                        BAD_FIELD, "cluster map group #" + g + " names node index " + index + " of " + nodes.size());
                }
                if (i < memberCount)
                {
                    members[i] = nodes.get(index).id();
                }
                else
                {
                    copying[i - memberCount] = nodes.get(index).id();
                }
            }
            groups.add(new ReplicaGroup(id, members, copying, flags == 1));
        }
        final int entry = Short.BYTES + (segmented ? 2 * Integer.BYTES : 0);
        final long movesLength = withMoves ? Short.BYTES + Integer.BYTES : 0;
        if ((long)partitions * entry + movesLength > in.remaining() ||
            (!withMoves && (long)partitions * entry != in.remaining()))
        {
            throw new MalformedMessageException(
                BAD_LENGTH, "cluster map group table of " + partitions + " partitions needs " +
                (long)partitions * entry + " bytes, has " + in.remaining());
        }
        final int[] partitionGroups = new int[partitions];
        final long[] segments = segmented ? new long[partitions] : null;
        for (int p = 0; p < partitions; p++)
        {
            final int index = in.getShort() & 0xFFFF;
            if (index >= groupCount)
            {
                throw new MalformedMessageException(
                    BAD_FIELD, "cluster map puts partition " + p + " in group index " + index + " of " + groupCount);
            }
            partitionGroups[p] = groups.get(index).id();
            if (segmented)
            {
                final long base = Integer.toUnsignedLong(in.getInt());
                final long count = Integer.toUnsignedLong(in.getInt());
                if (base + count > KeyHash.MAX_SEGMENT_FIELD + 1)
                {
                    throw new MalformedMessageException(BAD_FIELD, "cluster map segment of partition " + p +
                        " (base " + base + ", " + count + " groups) ends past 2^32 groups");
                }
                segments[p] = KeyHash.segment(base, count);
            }
        }
        final MapMoves moves = withMoves ? decodeMoves(in, groups) : MapMoves.NONE;
        if (in.hasRemaining())
        {
            throw new MalformedMessageException(
                BAD_LENGTH, "cluster map has " + in.remaining() + " bytes after its last field");
        }
        return new ClusterMap(epoch, fenceEpoch, partitions, nodes, factor, groups, partitionGroups, segments, moves);
    }

    private static MapMoves decodeMoves(final ByteBuffer in, final List<ReplicaGroup> groups)
    {
        final int batchCount = in.getShort() & 0xFFFF;
        if ((long)batchCount * (BATCH_HEADER_LENGTH + BATCH_ENTRY_LENGTH) > in.remaining())
        {
            throw new MalformedMessageException(OVERSIZED, "cluster map move batch count " + batchCount +
                " past its " + in.remaining() + " bytes");
        }
        final List<MoveBatch> batches = new ArrayList<>(batchCount);
        for (int b = 0; b < batchCount; b++)
        {
            final long id = in.getLong();
            final int source = group(in.getShort() & 0xFFFF, groups, "move batch #" + b);
            final int target = group(in.getShort() & 0xFFFF, groups, "move batch #" + b);
            final MovePhase phase = MovePhase.ofCode(in.get() & 0xFF);
            if (phase == null || in.get() != 0)
            {
                throw new MalformedMessageException(BAD_FIELD, "cluster map move batch #" + b +
                    " has an unknown phase or reserved bits set");
            }
            final int size = in.getShort() & 0xFFFF;
            final long phaseEpoch = in.getLong();
            if ((long)size * BATCH_ENTRY_LENGTH > in.remaining())
            {
                throw new MalformedMessageException(OVERSIZED, "cluster map move batch #" + b + " of " + size +
                    " partitions past its " + in.remaining() + " bytes");
            }
            final int[] partitions = new int[size];
            final long[] segments = new long[size];
            for (int i = 0; i < size; i++)
            {
                partitions[i] = in.getInt();
                segments[i] = segment(in, "move batch #" + b);
            }
            batches.add(new MoveBatch(id, source, target, phase, phaseEpoch, partitions, segments));
        }
        final long retiredCount = Integer.toUnsignedLong(in.getInt());
        if (retiredCount * RETIRED_LENGTH != in.remaining())
        {
            throw new MalformedMessageException(BAD_LENGTH, "cluster map's " + retiredCount + " retired segments need " +
                retiredCount * RETIRED_LENGTH + " bytes, it has " + in.remaining());
        }
        final List<RetiredSegment> retired = new ArrayList<>((int)retiredCount);
        for (int r = 0; r < retiredCount; r++)
        {
            final long batch = in.getLong();
            final long switchEpoch = in.getLong();
            final int group = group(in.getShort() & 0xFFFF, groups, "retired segment #" + r);
            if (in.getShort() != 0)
            {
                throw new MalformedMessageException(BAD_FIELD, "cluster map retired segment #" + r +
                    " has reserved bits set");
            }
            final int partition = in.getInt();
            retired.add(new RetiredSegment(group, partition, segment(in, "retired segment #" + r), switchEpoch, batch));
        }
        return new MapMoves(batches, retired);
    }

    private static int group(final int index, final List<ReplicaGroup> groups, final String what)
    {
        if (index >= groups.size())
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map " + what + " names group index " + index +
                " of " + groups.size());
        }
        return groups.get(index).id();
    }

    private static long segment(final ByteBuffer in, final String what)
    {
        final long base = Integer.toUnsignedLong(in.getInt());
        final long count = Integer.toUnsignedLong(in.getInt());
        if (base + count > KeyHash.MAX_SEGMENT_FIELD + 1)
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map " + what + " has a segment (base " + base +
                ", " + count + " groups) that ends past 2^32 groups");
        }
        return KeyHash.segment(base, count);
    }

    private static String host(final ByteBuffer in, final int length, final int node)
    {
        if (length > in.remaining())
        {
            throw new BufferUnderflowException();
        }
        final ByteBuffer bytes = in.slice(in.position(), length);
        in.position(in.position() + length);
        try
        {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        }
        catch (final CharacterCodingException e)
        {
            throw new MalformedMessageException(BAD_FIELD, "cluster map node #" + node + " host is not UTF-8", e);
        }
    }

    private static boolean isRoundRobin(final ClusterMap map)
    {
        if (!map.isSimple())
        {
            return false;
        }
        final List<ClusterNode> nodes = map.nodes();
        for (int p = 0; p < map.partitionCount(); p++)
        {
            if (map.nodeFor(p) != nodes.get(p % nodes.size()))
            {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(final List<ClusterNode> nodes, final int id)
    {
        for (int i = 0; i < nodes.size(); i++)
        {
            if (nodes.get(i).id() == id)
            {
                return i;
            }
        }
        throw new IllegalStateException("assigned node " + id + " not listed");
    }
}
