package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.resource.Errno;

/**
 * {@code RLIMIT_MEMLOCK} diagnostics. Registering memory pins its pages, and the kernel charges them
 * to this limit unless the process has {@code CAP_IPC_LOCK}; over the limit, {@code ibv_reg_mr} fails
 * with {@code ENOMEM} (some drivers say {@code EPERM} or {@code EAGAIN}). The error then says so.
 */
final class MemlockLimit
{
    /** How to raise the limit, for the error message. */
    static final String HOW_TO_RAISE = "raise it: `ulimit -l unlimited` in the shell that starts the JVM, " +
        "LimitMEMLOCK=infinity in a systemd unit, a memlock line in /etc/security/limits.conf, or " +
        "`docker run --ulimit memlock=-1`";

    private MemlockLimit()
    {
    }

    /** Whether a registration that failed with {@code errno} may have hit the memlock limit. */
    static boolean mayBeTheCause(final int errno)
    {
        return errno == Errno.ENOMEM || errno == Errno.EPERM || errno == Errno.EAGAIN;
    }

    /** The limit now, as text: {@code "RLIMIT_MEMLOCK is 8 MiB (hard limit 8 MiB)"}. */
    static String describe()
    {
        final long[] limit = LibC.memlockLimit();
        if (limit == null)
        {
            return "RLIMIT_MEMLOCK could not be read";
        }
        return "RLIMIT_MEMLOCK is " + bytes(limit[0]) + " (hard limit " + bytes(limit[1]) + ")";
    }

    /**
     * The sentence appended to a failed registration of {@code length} bytes with {@code errno}, or ""
     * when the limit cannot be the cause.
     */
    static String advice(final int errno, final long length)
    {
        if (!mayBeTheCause(errno))
        {
            return "";
        }
        final long[] limit = LibC.memlockLimit();
        if (limit != null && limit[0] == IbvConstants.RLIM_INFINITY)
        {
            return "; RLIMIT_MEMLOCK is unlimited, so the locked-memory limit is not the cause";
        }
        return "; registering pins memory, which counts against the locked-memory limit unless the process " +
            "has CAP_IPC_LOCK: " + describe() + " and this registration needs " + bytes(length) +
            " more; " + HOW_TO_RAISE;
    }

    static String bytes(final long n)
    {
        if (n == IbvConstants.RLIM_INFINITY)
        {
            return "unlimited";
        }
        if (n >= 1L << 30 && n % (1L << 30) == 0)
        {
            return (n >> 30) + " GiB";
        }
        if (n >= 1L << 20 && n % (1L << 20) == 0)
        {
            return (n >> 20) + " MiB";
        }
        if (n >= 1L << 10 && n % (1L << 10) == 0)
        {
            return (n >> 10) + " KiB";
        }
        return n + " bytes";
    }
}
