package io.rdmakv.verbs;

/** Memory region and queue pair access flags, with the bit values of {@code enum ibv_access_flags}. */
public final class AccessFlags
{
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    /**
     * {@code IBV_ACCESS_MW_BIND}: memory windows may be bound over the region ({@link MemoryWindow}).
     * A window that grants REMOTE_WRITE or REMOTE_ATOMIC also needs the region's LOCAL_WRITE.
     */
    public static final int MW_BIND = 1 << 4;

    /** Every remote access: what a queue pair that serves one-sided operations allows. */
    public static final int ALL_REMOTE = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private AccessFlags()
    {
    }

    public static String describe(final int flags)
    {
        final StringBuilder sb = new StringBuilder();
        if ((flags & LOCAL_WRITE) != 0)
        {
            sb.append("LOCAL_WRITE|");
        }
        if ((flags & REMOTE_WRITE) != 0)
        {
            sb.append("REMOTE_WRITE|");
        }
        if ((flags & REMOTE_READ) != 0)
        {
            sb.append("REMOTE_READ|");
        }
        if ((flags & REMOTE_ATOMIC) != 0)
        {
            sb.append("REMOTE_ATOMIC|");
        }
        if ((flags & MW_BIND) != 0)
        {
            sb.append("MW_BIND|");
        }
        return sb.isEmpty() ? "NONE" : sb.substring(0, sb.length() - 1);
    }
}
