package io.rdmakv.verbs;

/** Send flags, with the bit values of {@code enum ibv_send_flags}. */
public final class SendFlags
{
    /** Wait until earlier RDMA READs and atomics have completed before this request starts. */
    public static final int FENCE = 1;
    /** Produce a completion for this request (otherwise only errors produce one). */
    public static final int SIGNALED = 1 << 1;
    public static final int SOLICITED = 1 << 2;
    /** Copy the payload at post time; the local buffer needs no lkey and may be reused at once. */
    public static final int INLINE = 1 << 3;

    private SendFlags()
    {
    }
}
