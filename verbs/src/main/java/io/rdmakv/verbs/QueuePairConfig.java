package io.rdmakv.verbs;

/**
 * What {@link ProtectionDomain#createQueuePair} needs ({@code struct ibv_qp_init_attr} for an RC queue pair).
 *
 * @param sendCq        where send-queue completions go
 * @param recvCq        where receive completions go (may be the same queue)
 * @param maxSendWr     most outstanding send work requests
 * @param maxRecvWr     most posted receive work requests
 * @param maxSendSge    most scatter-gather elements per send work request
 * @param maxRecvSge    most scatter-gather elements per receive work request
 * @param maxInlineData most bytes of inline data per send work request
 */
public record QueuePairConfig(
    CompletionQueue sendCq,
    CompletionQueue recvCq,
    int maxSendWr,
    int maxRecvWr,
    int maxSendSge,
    int maxRecvSge,
    int maxInlineData)
{
    public QueuePairConfig
    {
        if (sendCq == null || recvCq == null)
        {
            throw new IllegalArgumentException("a queue pair needs a send and a receive completion queue");
        }
        if (maxSendWr <= 0 || maxRecvWr < 0 || maxSendSge <= 0 || maxRecvSge < 0 || maxInlineData < 0)
        {
            throw new IllegalArgumentException("queue pair capacities must be positive: " + this);
        }
    }

    /** One completion queue for both sides, 1 scatter-gather element, 64 bytes inline. */
    public static QueuePairConfig of(final CompletionQueue cq, final int maxSendWr, final int maxRecvWr)
    {
        return new QueuePairConfig(cq, cq, maxSendWr, maxRecvWr, 1, 1, 64);
    }
}
