package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.ReceiveWorkRequest;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Errors of the queues themselves: a full send queue, a queue pair moved to ERR with receives posted,
 * a message larger than the receive buffer, and a local buffer that is not registered.
 */
final class QueueErrorsTest
{
    /** Posts beyond this many without ENOMEM fail the test (a device may round a queue's size up). */
    private static final int POST_LIMIT = 1024;

    @ProviderTest
    void fullSendQueueRefusesWithEnomemAndRecovers(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final int maxSendWr = 4;
            // SENDs with no RECV posted and rnrRetry 7 (forever) stay outstanding until we post RECVs.
            final VerbsFixture.Link link = fx.connectedPair(
                QueuePairConfig.of(fx.client().cq(), maxSendWr, 1), ConnectOptions.DEFAULT,
                QueuePairConfig.of(fx.server().cq(), 1, POST_LIMIT + 1), ConnectOptions.DEFAULT);
            final MemoryRegion outbox = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion inbox = fx.register(fx.server(), 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest send = fx.sendRequests(1).at(0).send(outbox.address(), 8, outbox.lkey())
                .sendFlags(SendFlags.SIGNALED);

            int accepted = 0;
            int refusal = 0;
            while (accepted < POST_LIMIT && refusal == 0)
            {
                refusal = link.client().postSend(send.wrId(accepted));
                if (refusal == 0)
                {
                    accepted++;
                }
            }
            if (KnownDeviations.softIwarp(fx.client().context()))
            {
                // the first SEND found no RECV and ended the connection: the queue pair refuses the rest
                assertTrue(refusal != 0 && accepted < POST_LIMIT, "siw accepted " + accepted + " SENDs");
                Assumptions.abort(KnownDeviations.SIW_NO_RNR + "; then postSend returned " + refusal + " after " +
                    accepted + " accepted; kernel " + System.getProperty("os.version"));
            }
            assertEquals(Errno.ENOMEM, refusal, "postSend into a full send queue, after " + accepted + " accepted, " +
                "returned " + (refusal == 0 ? "0 every time" : Errno.name(refusal)));
            assertTrue(accepted >= maxSendWr, "only " + accepted + " accepted, maxSendWr is " + maxSendWr);
            fx.assertState(link.client(), QpState.RTS, "a refused post changes nothing");
            fx.assertNoCompletion(fx.client().cq(), "SENDs wait for RECVs (rnrRetry 7)");

            final ReceiveWorkRequest receive = fx.receiveRequests(1).at(0).buffer(inbox.address(), 64, inbox.lkey());
            for (int i = 0; i <= accepted; i++)
            {
                VerbsFixture.postReceive(link.server(), receive.wrId(10_000 + i));
            }
            final List<Completion> sent = fx.await(fx.client().cq(), accepted);
            for (int i = 0; i < accepted; i++)
            {
                sent.get(i).assertSuccess(i, WcOpcode.SEND, link.client().qpNum());
            }
            final List<Completion> received = fx.await(fx.server().cq(), accepted);
            for (int i = 0; i < accepted; i++)
            {
                received.get(i).assertSuccess(10_000 + i, WcOpcode.RECV, link.server().qpNum());
            }

            VerbsFixture.postSend(link.client(), send.wrId(accepted));
            fx.awaitOne(fx.client().cq()).assertSuccess(accepted, WcOpcode.SEND, link.client().qpNum());
            fx.awaitOne(fx.server().cq()).assertSuccess(10_000 + accepted, WcOpcode.RECV, link.server().qpNum());
        }
    }

    @ProviderTest
    void modifyToErrorFlushesPostedReceivesAndLaterOnes(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion inbox = fx.register(fx.server(), 256, AccessFlags.LOCAL_WRITE);
            final ReceiveWorkRequests receives = fx.receiveRequests(3);
            for (int i = 0; i < 3; i++)
            {
                receives.at(i).wrId(i + 1).buffer(inbox.address() + 64L * i, 64, inbox.lkey())
                    .next(i < 2 ? receives.at(i + 1) : null);
            }
            VerbsFixture.postReceive(link.server(), receives.at(0));
            fx.assertNoCompletion(fx.server().cq(), "posted RECVs wait for SENDs");

            link.server().modifyToError();
            fx.assertState(link.server(), QpState.ERR, "the responder");
            final List<Completion> flushed = fx.await(fx.server().cq(), 3);
            for (int i = 0; i < 3; i++)
            {
                flushed.get(i).assertStatus(i + 1, WcStatus.WR_FLUSH_ERR);
                assertEquals(link.server().qpNum(), flushed.get(i).qpNum(), "qpNum of a flushed RECV");
            }

            VerbsFixture.postReceive(link.server(), receives.at(0).wrId(4).next(null));
            final boolean softRoce = KnownDeviations.softRoce(fx.server().context());
            final boolean softIwarp = KnownDeviations.softIwarp(fx.server().context());
            if (!softRoce && !softIwarp)
            {
                fx.awaitOne(fx.server().cq()).assertStatus(4, WcStatus.WR_FLUSH_ERR);
                return;
            }
            // Soft-RoCE: see KnownDeviations.RXE_RECV_IN_ERR_NOT_FLUSHED. The RECV must not be lost: if it is
            // not flushed on its own, the next transition to ERR must flush it; then the test is reported as
            // aborted with the reason, not as passed.
            final Completion late = fx.awaitOneWithin(fx.server().cq(), TimeUnit.SECONDS.toNanos(2));
            if (late != null)
            {
                late.assertStatus(4, WcStatus.WR_FLUSH_ERR);
                return;
            }
            link.server().modifyToError();
            if (softIwarp)
            {
                final Completion flushedLate = fx.awaitOneWithin(fx.server().cq(), TimeUnit.SECONDS.toNanos(3));
                if (flushedLate == null)
                {
                    Assumptions.abort(KnownDeviations.SIW_POSTED_IN_ERR_NOT_COMPLETED + " (a RECV: not within 2 s, " +
                        "nor within 3 s of a second modifyToError); kernel " + System.getProperty("os.version"));
                }
                flushedLate.assertStatus(4, WcStatus.WR_FLUSH_ERR);
            }
            else
            {
                fx.awaitOne(fx.server().cq()).assertStatus(4, WcStatus.WR_FLUSH_ERR);
            }
            Assumptions.abort((softRoce ? KnownDeviations.RXE_RECV_IN_ERR_NOT_FLUSHED :
                KnownDeviations.SIW_RECV_IN_ERR_NOT_FLUSHED) + "; kernel " +
                System.getProperty("os.version"));
        }
    }

    @ProviderTest
    @Tag(ProviderTest.TOLERANT)
    void sendLargerThanTheReceiveBufferFailsOnBothSides(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion inbox = fx.register(fx.server(), 64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion outbox = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            VerbsFixture.postReceive(link.server(),
                fx.receiveRequests(1).at(0).wrId(1).buffer(inbox.address(), 16, inbox.lkey()));
            VerbsFixture.postSend(link.client(),
                fx.sendRequests(1).at(0).send(outbox.address(), 64, outbox.lkey())
                    .wrId(2).sendFlags(SendFlags.SIGNALED));

            // LOC_LEN_ERR is what the spec and real NICs say; Soft-RoCE says LOC_QP_OP_ERR (rxe_resp.c).
            final Completion received = fx.awaitOne(fx.server().cq());
            assertEquals(1, received.wrId(), () -> "wrId of " + received);
            final Set<WcStatus> allowed = KnownDeviations.softRoce(fx.server().context()) ?
                Set.of(WcStatus.LOC_LEN_ERR, WcStatus.LOC_QP_OP_ERR) : Set.of(WcStatus.LOC_LEN_ERR);
            assertTrue(allowed.contains(received.status()),
                () -> "a RECV too small for the SEND must fail with one of " + allowed + ": " + received);
            final Completion sent = fx.awaitOne(fx.client().cq());
            assertEquals(2, sent.wrId(), () -> "wrId of " + sent);
            if (KnownDeviations.softIwarp(fx.client().context()) && sent.isSuccess())
            {
                Assumptions.abort(KnownDeviations.SIW_LOCAL_COMPLETION + " (the RECV failed with " + received.status() +
                    "); kernel " + System.getProperty("os.version"));
            }
            // REM_INV_REQ_ERR on ibverbs devices; any error is conformant.
            assertFalse(sent.isSuccess(), () -> "a SEND the receiver could not hold: " + sent);
            fx.assertState(link.client(), QpState.ERR, "the requester");
        }
    }

    /** Provider-tolerant: LOC_PROT_ERR on ibverbs devices, but any error status is conformant. */
    @ProviderTest
    @Tag(ProviderTest.TOLERANT)
    void readIntoMemoryWithABogusLkeyFails(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final int bogusLkey = local.lkey() ^ 0x00ff_ff00;
            assertNotEquals(local.lkey(), bogusLkey);
            VerbsFixture.postSend(link.client(), fx.sendRequests(1).at(0)
                .rdmaRead(local.address(), 8, bogusLkey, remote.address(), remote.rkey())
                .wrId(3).sendFlags(SendFlags.SIGNALED));

            final Completion c = fx.awaitOne(fx.client().cq());
            assertEquals(3, c.wrId(), () -> "wrId of " + c);
            assertFalse(c.isSuccess(), () -> "a READ into memory the lkey does not name must fail: " + c);
        }
    }
}
