package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.WcOpcode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Parents refuse to close while children are open, with a {@link VerbsException}, and stay usable; once
 * the children are closed the parent closes; every close is idempotent.
 */
final class CloseOrderingTest
{
    @ProviderTest
    void protectionDomainWithALiveMemoryRegionRefusesToClose(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final ProtectionDomain pd = fx.track(fx.client().context().allocateProtectionDomain());
            final MemoryRegion mr = fx.register(pd, fx.allocate(4096), AccessFlags.LOCAL_WRITE);
            assertThrows(VerbsException.class, pd::close, "closing a protection domain with a live memory region");

            final MemoryRegion another = fx.register(pd, fx.allocate(64), AccessFlags.LOCAL_WRITE);
            assertEquals(pd, another.protectionDomain(), "the refused close left the protection domain usable");
            another.close();
            mr.close();
            pd.close();
            pd.close();
        }
    }

    @ProviderTest
    void protectionDomainWithALiveQueuePairRefusesToClose(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final ProtectionDomain pd = fx.track(fx.client().context().allocateProtectionDomain());
            final QueuePair qp = fx.track(pd.createQueuePair(QueuePairConfig.of(fx.client().cq(), 4, 4)));
            assertThrows(VerbsException.class, pd::close, "closing a protection domain with a live queue pair");
            qp.close();
            pd.close();
        }
    }

    @ProviderTest
    void contextWithALiveProtectionDomainRefusesToClose(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final Context context = fx.openContext();
            final ProtectionDomain pd = fx.track(context.allocateProtectionDomain());
            assertThrows(VerbsException.class, context::close, "closing a device with a live protection domain");

            fx.track(context.createCompletionQueue(16)).close(); // the refused close left the device usable
            pd.close();
            context.close();
            context.close();
        }
    }

    @ProviderTest
    void contextWithALiveCompletionQueueRefusesToClose(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final Context context = fx.openContext();
            final CompletionQueue cq = fx.track(context.createCompletionQueue(16));
            assertThrows(VerbsException.class, context::close, "closing a device with a live completion queue");
            cq.close();
            context.close();
        }
    }

    @ProviderTest
    void completionQueueUsedByAQueuePairRefusesToClose(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final CompletionQueue sendCq = fx.createCompletionQueue(fx.client(), 16);
            final CompletionQueue recvCq = fx.createCompletionQueue(fx.client(), 16);
            final QueuePair qp = fx.createQueuePair(fx.client(), new QueuePairConfig(sendCq, recvCq, 4, 4, 1, 1, 0));
            assertThrows(VerbsException.class, sendCq::close, "closing a queue pair's send completion queue");
            assertThrows(VerbsException.class, recvCq::close, "closing a queue pair's receive completion queue");
            qp.close();
            sendCq.close();
            recvCq.close();
        }
    }

    @ProviderTest
    void everyCloseIsIdempotentIncludingThatOfAConnectedQueuePair(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final Context context = fx.openContext();
            final ProtectionDomain pd = fx.track(context.allocateProtectionDomain());
            final CompletionQueue cq = fx.track(context.createCompletionQueue(16));
            final MemoryRegion mr = fx.register(pd, fx.allocate(64), AccessFlags.LOCAL_WRITE);
            final QueuePair qp = fx.track(pd.createQueuePair(QueuePairConfig.of(cq, 4, 4)));
            final QueuePair peer = fx.createQueuePair(fx.server(), QueuePairConfig.of(fx.server().cq(), 4, 4));
            // an rdma_cm connection closes before its queue pair (ConnectionManager.Connection), and closes twice too
            final QueuePairConnector.Connected connection =
                fx.track(QueuePairConnector.connect(qp, ConnectOptions.DEFAULT, peer, ConnectOptions.DEFAULT));
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            VerbsFixture.postSend(qp, fx.sendRequests(1).at(0)
                .rdmaRead(mr.address(), 8, mr.lkey(), remote.address(), remote.rkey()).wrId(1)
                .sendFlags(SendFlags.SIGNALED));
            fx.awaitOne(cq).assertSuccess(1, WcOpcode.RDMA_READ, qp.qpNum());

            connection.close();
            connection.close();
            qp.close();
            qp.close();
            mr.close();
            mr.close();
            cq.close();
            cq.close();
            pd.close();
            pd.close();
            context.close();
            context.close();
            peer.close();
            peer.close();
        }
    }
}
