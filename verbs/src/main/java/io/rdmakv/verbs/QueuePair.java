package io.rdmakv.verbs;

/**
 * A reliable-connected queue pair ({@code struct ibv_qp}, {@code IBV_QPT_RC}).
 *
 * <p>Life: created in RESET; {@link #connect} (or {@link #modifyToInit}, {@link #modifyToRtr},
 * {@link #modifyToRts}) brings it to RTS. A work request that fails moves it to ERR: the failing
 * request completes with its error status and every later one with {@code WR_FLUSH_ERR}, as on a
 * real NIC. {@link #postSend} and {@link #postReceive} return 0 or an errno and never throw.
 */
public interface QueuePair extends AutoCloseable
{
    ProtectionDomain protectionDomain();

    int qpNum();

    QpState state();

    /** What the peer needs to connect to this queue pair. */
    QueuePairEndpoint localEndpoint();

    /** RESET → INIT, accepting the remote accesses in {@code options.accessFlags()}. */
    void modifyToInit(ConnectOptions options);

    /** INIT → RTR: the queue pair now receives from {@code remote}. */
    void modifyToRtr(QueuePairEndpoint remote, ConnectOptions options);

    /** RTR → RTS: the queue pair may now send. */
    void modifyToRts(ConnectOptions options);

    /** Any state → ERR: outstanding work requests are flushed. */
    void modifyToError();

    /** RESET → INIT → RTR → RTS in one call. */
    default void connect(final QueuePairEndpoint remote, final ConnectOptions options)
    {
        modifyToInit(options);
        modifyToRtr(remote, options);
        modifyToRts(options);
    }

    /**
     * Posts a work request, or the chain that starts with it, with one doorbell.
     *
     * @return 0, or an errno: {@code ENOMEM} when the send queue is full, {@code EINVAL} for a request
     * the queue pair cannot carry (bad opcode, too many scatter-gather elements, too much inline data)
     */
    int postSend(SendWorkRequest wr);

    /** Posts a receive work request or chain. @return 0 or an errno ({@code ENOMEM}: receive queue full). */
    int postReceive(ReceiveWorkRequest wr);

    /** Idempotent. */
    @Override
    void close();
}
