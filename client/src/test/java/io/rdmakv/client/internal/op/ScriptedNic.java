package io.rdmakv.client.internal.op;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ReceiveWorkRequest;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-process queue pair connected to a {@link NodeRegion}, its completions in a
 * {@link ScriptedCompletionQueue}: each posted chain is executed at once against the node's memory the way
 * an RC responder would (in order; rkey and bounds of every remote access checked, REM_ACCESS_ERR for a
 * violation, the rest flushed and the queue pair in ERR from then on), and control SENDs are answered like
 * a node (ALLOC_OK into the next posted receive buffer, FREE recorded).
 * Every doorbell is recorded by its shape, e.g. {@code "WRITE block + READ group + READ group"}; scripts
 * run before chosen doorbells (a racing writer, a lock holder, a clock jump).
 */
final class ScriptedNic implements QueuePair
{
    /** Runs before doorbell {@code number} (1-based) of the given shape is executed. */
    @FunctionalInterface
    interface Script
    {
        void beforeDoorbell(int number, String shape);
    }

    private record Receive(long wrId, long address, int length, int lkey)
    {
    }

    private final NodeRegion node;
    private final MemoryRegion local;
    private final ScriptedCompletionQueue completions = new ScriptedCompletionQueue();
    private final ArrayDeque<Receive> receives = new ArrayDeque<>();
    private final List<String> doorbells = new ArrayList<>();
    private final List<Script> scripts = new ArrayList<>();
    private boolean error;

    ScriptedNic(final NodeRegion node, final MemoryRegion local)
    {
        this.node = node;
        this.local = local;
    }

    // ---- what a test scripts and asserts ------------------------------------------------------

    /** Runs {@code script} before every doorbell from now on. */
    void beforeEachDoorbell(final Script script)
    {
        scripts.add(script);
    }

    /** Runs {@code action} once, before the next doorbell of shape {@code shape}. */
    void beforeNext(final String shape, final Runnable action)
    {
        scripts.add(new Script()
        {
            private boolean done;

            @Override
            public void beforeDoorbell(final int number, final String posted)
            {
                if (!done && posted.equals(shape))
                {
                    done = true;
                    action.run();
                }
            }
        });
    }

    /** The shapes of every doorbell so far, in order. */
    List<String> doorbells()
    {
        return List.copyOf(doorbells);
    }

    /** The shapes of the doorbells after the first {@code mark}. */
    List<String> doorbellsSince(final int mark)
    {
        return List.copyOf(doorbells.subList(mark, doorbells.size()));
    }

    int doorbellCount()
    {
        return doorbells.size();
    }

    /** Where this queue pair's completions go. */
    CompletionQueue completionQueue()
    {
        return completions;
    }

    // ---- QueuePair ----------------------------------------------------------------------------

    @Override
    public int postSend(final SendWorkRequest first)
    {
        final List<SendWorkRequest> chain = new ArrayList<>();
        for (SendWorkRequest wr = first; wr != null;
            wr = wr.nextAddress() == 0 ? null : wr.owner().byAddress(wr.nextAddress()))
        {
            chain.add(wr);
        }
        final String shape = Doorbells.shape(chain, node, local);
        doorbells.add(shape);
        for (final Script script : List.copyOf(scripts))
        {
            script.beforeDoorbell(doorbells.size(), shape);
        }
        for (final SendWorkRequest wr : chain)
        {
            if (error)
            {
                completions.add(wr.wrId(), WcStatus.WR_FLUSH_ERR.code(), 0, 0);
                continue;
            }
            final ControlMessage[] reply = new ControlMessage[1];
            final WcStatus status = execute(wr, reply);
            if (status != WcStatus.SUCCESS)
            {
                completions.add(wr.wrId(), status.code(), 0, 0);
                modifyToError();
            }
            else if ((wr.sendFlags() & SendFlags.SIGNALED) != 0)
            {
                completions.add(wr.wrId(), 0, WcOpcode.ofSendOpcode(wr.opcode()), wr.sgeLength(0));
            }
            if (reply[0] != null)
            {
                deliver(reply[0]);
            }
        }
        return 0;
    }

    @Override
    public int postReceive(final ReceiveWorkRequest first)
    {
        for (ReceiveWorkRequest wr = first; wr != null;
            wr = wr.nextAddress() == 0 ? null : wr.owner().byAddress(wr.nextAddress()))
        {
            receives.add(new Receive(wr.wrId(), wr.sgeAddr(0), wr.sgeLength(0), wr.sgeLkey(0)));
        }
        if (error)
        {
            flushReceives();
        }
        return 0;
    }

    @Override
    public void modifyToError()
    {
        error = true;
        flushReceives();
    }

    @Override
    public QpState state()
    {
        return error ? QpState.ERR : QpState.RTS;
    }

    // ---- the responder ------------------------------------------------------------------------

    private WcStatus execute(final SendWorkRequest wr, final ControlMessage[] reply)
    {
        final int length = wr.sgeLength(0);
        final long localOffset = localOffset(wr.sgeAddr(0), length, wr.sgeLkey(0));
        if (wr.numSge() != 1 || localOffset < 0)
        {
            return WcStatus.LOC_PROT_ERR;
        }
        final MemorySegment mem = local.segment();
        final MemorySegment region = node.memory();
        switch (wr.opcode())
        {
            case Opcode.RDMA_READ, Opcode.RDMA_WRITE ->
            {
                final long remote = node.translate(wr.rdmaRemoteAddr(), length, wr.rdmaRkey(),
                    wr.opcode() == Opcode.RDMA_WRITE);
                if (remote < 0)
                {
                    return WcStatus.REM_ACCESS_ERR;
                }
                if (wr.opcode() == Opcode.RDMA_READ)
                {
                    MemorySegment.copy(region, remote, mem, localOffset, length);
                }
                else
                {
                    MemorySegment.copy(mem, localOffset, region, remote, length);
                }
            }
            case Opcode.ATOMIC_CMP_AND_SWP ->
            {
                final long remote = node.translate(wr.atomicRemoteAddr(), Long.BYTES, wr.atomicRkey(), true);
                if (length != Long.BYTES || wr.atomicRemoteAddr() % Long.BYTES != 0)
                {
                    return WcStatus.REM_INV_REQ_ERR;
                }
                if (remote < 0)
                {
                    return WcStatus.REM_ACCESS_ERR;
                }
                final long old = region.get(LittleEndian.U64, remote);
                if (old == wr.atomicCompareAdd())
                {
                    region.set(LittleEndian.U64, remote, wr.atomicSwap());
                }
                mem.set(ValueLayout.JAVA_LONG_UNALIGNED, localOffset, old);
            }
            case Opcode.SEND -> reply[0] = node.answer(ControlCodec.decode(mem, localOffset, length));
            default ->
            {
                return WcStatus.LOC_QP_OP_ERR;
            }
        }
        return WcStatus.SUCCESS;
    }

    /** A node's reply lands in the next posted receive buffer. */
    private void deliver(final ControlMessage reply)
    {
        final Receive receive = receives.poll();
        if (receive == null)
        {
            throw new IllegalStateException("receiver not ready: no receive posted for " + reply.type());
        }
        final long offset = localOffset(receive.address(), receive.length(), receive.lkey());
        final int length = ControlCodec.encode(reply, local.segment().asSlice(offset, receive.length()), 0);
        completions.add(receive.wrId(), 0, WcOpcode.RECV, length);
    }

    private void flushReceives()
    {
        while (!receives.isEmpty())
        {
            completions.add(receives.poll().wrId(), WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, 0);
        }
    }

    private long localOffset(final long address, final int length, final int lkey)
    {
        final long offset = address - local.address();
        return lkey == local.lkey() && length >= 0 && offset >= 0 && offset <= local.length() - length ? offset : -1;
    }

    // ---- the rest of the interfaces: nothing to do in-process ----------------------------------

    @Override
    public ProtectionDomain protectionDomain()
    {
        return null;
    }

    @Override
    public int qpNum()
    {
        return 1;
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return QueuePairEndpoint.tcp(1, 0, "127.0.0.1", 1);
    }

    @Override
    public void modifyToInit(final ConnectOptions options)
    {
    }

    @Override
    public void modifyToRtr(final QueuePairEndpoint remote, final ConnectOptions options)
    {
    }

    @Override
    public void modifyToRts(final ConnectOptions options)
    {
    }

    @Override
    public void close()
    {
    }
}
