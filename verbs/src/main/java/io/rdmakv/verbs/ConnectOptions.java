package io.rdmakv.verbs;

/**
 * Connection attributes for the RTR and RTS transitions of an RC queue pair.
 *
 * @param accessFlags  remote accesses this queue pair accepts ({@link AccessFlags}); the memory
 *                     region's own flags must allow them too
 * @param timeout      local ACK timeout exponent (4.096 us * 2^timeout); 0 waits forever
 * @param retryCount   transport retries before {@code RETRY_EXC_ERR} (0..7)
 * @param rnrRetry     receiver-not-ready retries before {@code RNR_RETRY_EXC_ERR} (0..6, 7 = forever)
 * @param minRnrTimer  how long the responder asks a SEND with no posted RECV to wait (IB encoding 0..31)
 * @param maxRdAtomic  outstanding RDMA READs and atomics this side issues (0 = the device's maximum)
 * @param gidIndex     RoCE GID index (-1 = pick a RoCE v2 entry automatically); ignored by {@code tcp}
 */
public record ConnectOptions(
    int accessFlags,
    int timeout,
    int retryCount,
    int rnrRetry,
    int minRnrTimer,
    int maxRdAtomic,
    int gidIndex)
{
    /** All remote accesses, 4.096 us * 2^14 (~67 ms) ACK timeout, 7 retries, RNR 7 (forever), 12 (0.64 ms). */
    public static final ConnectOptions DEFAULT = new ConnectOptions(AccessFlags.ALL_REMOTE, 14, 7, 7, 12, 0, -1);

    public ConnectOptions
    {
        if (retryCount < 0 || retryCount > 7 || rnrRetry < 0 || rnrRetry > 7)
        {
            throw new IllegalArgumentException("retryCount and rnrRetry are 0..7");
        }
        if (minRnrTimer < 0 || minRnrTimer > 31 || timeout < 0 || timeout > 31)
        {
            throw new IllegalArgumentException("minRnrTimer and timeout are 0..31");
        }
    }

    public ConnectOptions withRnrRetry(final int rnrRetry)
    {
        return new ConnectOptions(accessFlags, timeout, retryCount, rnrRetry, minRnrTimer, maxRdAtomic, gidIndex);
    }

    public ConnectOptions withMinRnrTimer(final int minRnrTimer)
    {
        return new ConnectOptions(accessFlags, timeout, retryCount, rnrRetry, minRnrTimer, maxRdAtomic, gidIndex);
    }

    public ConnectOptions withAccessFlags(final int accessFlags)
    {
        return new ConnectOptions(accessFlags, timeout, retryCount, rnrRetry, minRnrTimer, maxRdAtomic, gidIndex);
    }

    public ConnectOptions withGidIndex(final int gidIndex)
    {
        return new ConnectOptions(accessFlags, timeout, retryCount, rnrRetry, minRnrTimer, maxRdAtomic, gidIndex);
    }

    /** The RNR timer's encoded value in microseconds (InfiniBand spec table; 0 means 655.36 ms). */
    public static long minRnrTimerMicros(final int code)
    {
        final long[] micros = {
            655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920,
            2_560, 3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880,
            163_840, 245_760, 327_680, 491_520 };
        return micros[code];
    }
}
